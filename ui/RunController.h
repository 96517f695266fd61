#pragma once
// Runs what the plan panel asks for and appends it to the open file, on a worker thread for every
// backend (sim, cpu, cuda), through the one runtime entry point (runtime/run/RunPlan.h). Jobs
// carry a generation id: a new request cancels the old one, and results reach the GUI thread
// through queued calls only while still current (DESIGN §7.6).

#include <QObject>

#include <atomic>
#include <memory>
#include <thread>

#include "ui/PlanPanel.h"

namespace ps::ui {

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Starts a run appending to `path`; finished or failed follow on the GUI thread. A job still
  // running is cancelled first and waited for.
  void start(const runtime::RunPlanRequest& request, const QString& path);
  // The old panel's request (compatibility: RunRequest::job, failed for an unknown backend).
  void start(const RunRequest& request, const QString& path);
  void cancel();
  // True from start() until the current job's finished/failed has been delivered.
  bool busy() const { return pending_; }

 signals:
  void progress(const QString& stage, int done, int total);
  void finished(qint64 runId);
  void failed(const QString& message);

 private:
  void joinWorker();

  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool pending_ = false;  // GUI thread only
  std::uint64_t generation_ = 0;
};

}  // namespace ps::ui
