#pragma once
// What the main window shows: the open file (RunLibrary) and the run on screen, alone or as A of
// a comparison with B. It opens files, follows the run history's selection, shows the results of
// runs (RunController: finished, began, shown from memory, saved, explained) and imports, keeps
// up with other writers of the file (a run added, finished, deleted; the running run on screen
// grown, LiveFollower) and announces every change of the shown run (currentRunChanged), which
// the window passes on to its docks. It drives the views it is given; the window lays them out.

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>
#include <vector>

#include "trace/Result.h"

class QDockWidget;
class QStatusBar;
class QWidget;

namespace ps::runtime {
struct RunPlanRequest;
}
namespace ps::trace {
struct RunExplanation;
}

namespace ps::ui {

class CompareModel;
class LiveFollower;
class PlanDock;
class RunController;
class RunHistoryPanel;
class RunLibrary;
class RunProgress;
class ScratchSession;
class TimelineArea;
struct LoadedRun;

// The window's views a session drives (all owned by the window).
struct SessionViews {
  QWidget* window = nullptr;  // the parent of its message boxes
  TimelineArea* area = nullptr;
  RunHistoryPanel* history = nullptr;
  CompareModel* compare = nullptr;
  QDockWidget* compareDock = nullptr;
  QStatusBar* status = nullptr;
  RunProgress* progress = nullptr;
  PlanDock* plan = nullptr;  // its knobs follow the run on screen
};

class RunSession : public QObject {
  Q_OBJECT
 public:
  // `library`: the open file (the window's, shared with the plan dock).
  RunSession(const SessionViews& views, RunLibrary* library, RunController* controller,
             QObject* parent = nullptr);

  const RunLibrary& library() const { return *library_; }
  QString file() const;
  const std::shared_ptr<const LoadedRun>& current() const { return current_; }
  QString lastError() const { return lastError_; }
  // Keeps `message` as lastError(); in a modal box when `dialog`.
  void fail(const QString& message, bool dialog);

  // The runs made without a file (the demo, the scratch session).
  ScratchSession& scratch() const { return *scratch_; }

  // MainWindow's openTrace, showRun, compareRuns, saveTraceAs and runRequest (documented there).
  bool open(const QString& path, bool dialogs = true);
  bool showRun(qint64 id);
  bool compareRuns(qint64 a, qint64 b);
  bool saveAs(const QString& to, bool dialogs = true);
  void run(const runtime::RunPlanRequest& request);
  // Run `id` was imported into the open file: listed and shown; false when it cannot be.
  bool showImported(qint64 id);

 signals:
  void currentRunChanged(const std::shared_ptr<const LoadedRun>& run);
  void fileOpened(const QString& path);
  void fileRefused(const QString& path);  // it did not open (it is not a recent file any more)
  // A profile of another tool was opened, and the user wants it imported.
  void importAsked(const QString& path);

 private:
  void showOpDiff();
  bool list(qint64 current = -1);
  void setCurrent(const std::shared_ptr<const LoadedRun>& run);
  void showLoaded(const std::shared_ptr<const LoadedRun>& run);
  // Shows the current (newest) run, or when the loader refuses it the newest one it does not,
  // with a message naming the refused run: one bad run does not hide the others.
  bool showLoadableRun();
  void endComparison();
  void followSelection();
  void compareWithFitOrigin(const LoadedRun& run);
  bool followsLive() const;
  // Reads the steps committed since the last call and shows the run grown; false when the run
  // on screen is not one to follow (ended, compared, unsaved) or cannot be read.
  bool followLive();
  void onRunsChanged(const std::vector<qint64>& added);
  void onRunBegan(qint64 id);
  void onRunFinished(qint64 id);
  void onRunCancelled(const QString& message);
  void onRunFailed(const QString& message);
  // RunSessionSaves.cpp: a simulated run shown from memory, then saved in the background.
  void onPreviewed(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder);
  void onSaveBegan(qint64 placeholder, qint64 id);
  void onSaved(qint64 id);
  void onSaveFailed(qint64 placeholder, qint64 id, const QString& message);
  void onExplained(const std::shared_ptr<const LoadedRun>& run,
                   const std::shared_ptr<const trace::RunExplanation>& why);

  SessionViews v_;
  RunController* controller_;
  RunLibrary* library_;
  LiveFollower* live_;
  ScratchSession* scratch_;
  QString lastError_;
  std::shared_ptr<const LoadedRun> current_, compared_;
  // The bottom dock in front when a comparison began: in front again when it ends (hiding the
  // Compare tab left whichever tab came next, Details, in front).
  QPointer<QDockWidget> frontBeforeCompare_;
};

}  // namespace ps::ui
