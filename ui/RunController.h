#pragma once
// Runs what the plan panel asks for and appends it to the open file, on a worker thread for every
// backend (sim, cpu, cuda), through the one runtime entry point (runtime/run/RunPlan.h), as a
// JobTracker job: a new request cancels the old one, and results reach the GUI thread only while
// still current (DESIGN §7.6). Progress is staged (plan → run → write) and throttled.

#include <QObject>
#include <QString>

#include "runtime/run/RunPlan.h"
#include "ui/JobTracker.h"

namespace ps::ui {

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Starts a run appending to `path`; finished or failed follow on the GUI thread. A job still
  // running is cancelled first and waited for.
  void start(const runtime::RunPlanRequest& request, const QString& path);
  void cancel();
  // True from start() until the current job's finished/failed has been delivered.
  bool busy() const { return jobs_.busy(); }

 signals:
  void progress(const QString& stage, int done, int total);
  void finished(qint64 runId);
  void failed(const QString& message);

 private:
  JobTracker jobs_;
};

}  // namespace ps::ui
