#pragma once
// Runs an import on a worker thread (DESIGN §7.6): runtime::importRun, the CLI's import, into the
// open trace file. Progress is staged (profiles: read → align → write; schedules: plan → run →
// write) and throttled; Cancel stops it and leaves the file as it was. Results reach the GUI thread
// through queued calls only while the job is still the current one.

#include <QObject>
#include <QString>

#include "ui/JobTracker.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {

class ImportJob : public QObject {
  Q_OBJECT
 public:
  explicit ImportJob(QObject* parent = nullptr);
  ~ImportJob() override;

  // Starts importing into `tracePath` (appending one run); a running import is cancelled first.
  void start(const ImportRequest& request, const QString& tracePath);
  void cancel();
  bool busy() const { return jobs_.busy(); }

 signals:
  // stage: importRun's ("read", "align", "write"; "plan", "run", "write"); percent 0..100.
  void progress(const QString& stage, int percent);
  // The new run and a few lines saying what was recognised.
  void finished(qint64 runId, const QString& summary);
  void failed(const QString& message);

 private:
  JobTracker jobs_;
};

}  // namespace ps::ui
