#pragma once
// The open trace file and the runs it holds: lists them in the run history, loads one (from
// memory while it is a simulated run whose save has not ended), keeps those unsaved runs until
// their rows are committed, and watches the file for other writers (TraceFileWatch): a run
// appended by `pipescope-cli sim --db FILE` is listed within a poll or two, and a file that was
// removed or replaced by something else leaves what is loaded with a word (message()).

#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <vector>

#include "trace/Result.h"
#include "trace/TraceRecords.h"

namespace ps::ui {

class RunHistoryPanel;
class TraceFileWatch;
struct LoadedRun;

class RunLibrary : public QObject {
  Q_OBJECT
 public:
  // `history`: the list the runs are shown in (the window's Run history dock).
  explicit RunLibrary(RunHistoryPanel* history, QObject* parent = nullptr);

  QString file() const { return path_; }
  const RunHistoryPanel& history() const { return *history_; }
  // Makes `path` the open file, its runs listed (the latest current); the store's message when it
  // does not open or holds no runs, and the open file stays as it was. Runs of the previous file
  // still being saved go on being saved there, out of this library.
  Status open(const QString& path);
  // Lists the open file's runs again, `current` selected (-1: the latest).
  Status list(qint64 current = -1);
  Result<std::vector<trace::RunInfo>> readRuns() const;
  // Run `id` of the open file: from memory while it is not saved, else loaded and analysed.
  Result<std::shared_ptr<const LoadedRun>> load(qint64 id) const;
  bool isUnsaved(qint64 id) const { return unsaved_.count(id) > 0; }
  // Run `id` as the last poll() read the file; an unsaved run counts as there and unchanged.
  const trace::RunInfo* inFile(qint64 id) const;

  // Unsaved runs (RunController): `run` shown before the file has it, listed as "saving" under
  // `placeholder` and selected; false when it belongs to another file than the open one.
  bool keepUnsaved(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder);
  // Its save has begun: it is listed under the file's id now. Null when it is not held.
  std::shared_ptr<const LoadedRun> adoptId(qint64 placeholder, qint64 id);
  // Saved: the file has it. False when it was not held.
  bool dropSaved(qint64 id);
  // Its save failed: kept and listed as not saved, with why. False when it was not held.
  bool markNotSaved(qint64 key, const QString& message);
  void replaceUnsaved(const std::shared_ptr<const LoadedRun>& run,
                      const std::shared_ptr<const LoadedRun>& with);

 public slots:
  // Reads the file's runs again (the watch calls it on every change of the file).
  void poll();

 signals:
  void message(const QString& text, int timeoutMs);
  // poll() found the list changed; `added`: runs new to it.
  void runsChanged(const std::vector<qint64>& added);
  // poll() found the same runs (the running one may have grown).
  void runsUnchanged();

 private:
  RunHistoryPanel* history_;
  TraceFileWatch* watch_;
  QString path_;
  bool fileGone_ = false;             // said once per disappearance
  std::vector<trace::RunInfo> runs_;  // as poll() last read them
  // Runs shown before the file has them complete, by their id (a placeholder < -1 until the
  // save has begun, then the file's); dropped once saved, kept when the save failed.
  std::map<qint64, std::shared_ptr<const LoadedRun>> unsaved_;
};

}  // namespace ps::ui
