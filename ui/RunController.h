#pragma once
// Runs what the plan panel asks for and appends it to the open file: the simulator inline (it
// takes milliseconds), the cpu backend on a worker thread. Jobs carry a generation id: a new
// request cancels the old one, and results reach the GUI thread through queued calls only
// while still current (DESIGN §7.6).

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

  // Starts a run appending to `path`. Sim runs finish before this returns.
  void start(const RunRequest& request, const QString& path);
  void cancel();
  bool busy() const { return worker_.joinable() && !done_; }

 signals:
  void progress(const QString& stage, int done, int total);
  void finished(qint64 runId);
  void failed(const QString& message);

 private:
  void runSim(const RunRequest& request, const QString& path);
  void startCpu(const RunRequest& request, const QString& path);
  void joinWorker();

  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::atomic<bool> done_{true};
  std::uint64_t generation_ = 0;
};

}  // namespace ps::ui
