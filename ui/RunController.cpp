#include "ui/RunController.h"

#include <QMetaObject>

#include <optional>

#include "runtime/run/RunPlan.h"
#include "ui/ProgressThrottle.h"

namespace ps::ui {

RunController::RunController(QObject* parent) : QObject(parent) {}

RunController::~RunController() {
  cancel();
  joinWorker();
}

void RunController::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void RunController::cancel() {
  if (cancel_) *cancel_ = true;
}

void RunController::start(const RunRequest& request, const QString& path) {
  if (auto job = request.job()) return start(*job, path);
  cancel();
  joinWorker();
  ++generation_;  // drops what the old job still posts
  pending_ = false;
  emit failed("unknown backend '" + request.backend + "'");
}

void RunController::start(const runtime::RunPlanRequest& request, const QString& path) {
  cancel();  // a new request supersedes the running one
  joinWorker();
  const std::uint64_t generation = ++generation_;
  runtime::RunPlanRequest job = request;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  pending_ = true;
  // Posts `fn` to the GUI thread, dropped if a newer job has started since.
  auto post = [this, generation](auto fn) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, fn] {
          if (generation == generation_) fn();
        },
        Qt::QueuedConnection);
  };
  worker_ =
      std::thread([this, job = std::move(job), cancel = cancel_, file = path.toStdString(), post] {
        // Staged: plan -> run -> write here, then load on the GUI thread; throttled.
        ProgressThrottle throttle;
        runtime::RunControl control;
        control.cancel = cancel.get();
        control.progress = [&](runtime::RunStage stage, int done, int total) {
          const std::string name(runtime::runStageName(stage));
          if (throttle.pass(name, done, total))
            post([this, stage = QString::fromStdString(name), done, total] {
              emit progress(stage, done, total);
            });
        };
        std::optional<qint64> id;
        QString error;
        {
          auto result = runtime::runPlan(job, {file}, control);  // closes the file when done
          if (!result) {
            error = QString::fromStdString(result.error());
          } else {
            id = result->runId;
            if (result->status != trace::RunStatus::Complete)
              error = QString::fromStdString(result->message);
          }
        }
        post([this, id, error] {
          pending_ = false;
          if (id) emit finished(*id);  // a failed or cancelled run is shown too
          if (!error.isEmpty() || !id) emit failed(error.isEmpty() ? "no run was written" : error);
        });
      });
}

}  // namespace ps::ui
