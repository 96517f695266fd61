#include "ui/RunController.h"

#include <optional>

#include "trace/ProgressThrottle.h"

namespace ps::ui {

RunController::RunController(QObject* parent) : QObject(parent), jobs_(this) {}

RunController::~RunController() = default;

void RunController::cancel() {
  jobs_.cancel();
}

void RunController::start(const runtime::RunPlanRequest& request, const QString& path) {
  jobs_.start([this, request, file = path.toStdString()](const JobTracker::Job& job) {
    trace::ProgressThrottle throttle(std::chrono::milliseconds(50));
    runtime::RunControl control;
    control.cancel = job.cancelFlag();
    control.progress = [&](runtime::RunStage stage, int done, int total) {
      const std::string name(runtime::runStageName(stage));
      if (throttle.pass(name, done, total))
        job.post([this, stage = QString::fromStdString(name), done, total] {
          emit progress(stage, done, total);
        });
    };
    std::optional<qint64> id;
    QString error;
    {
      auto result = runtime::runPlan(request, {file}, control);  // closes the file when done
      if (!result) {
        error = QString::fromStdString(result.error());
      } else {
        id = result->runId;
        if (result->status != trace::RunStatus::Complete)
          error = QString::fromStdString(result->message);
      }
    }
    job.finish([this, id, error] {
      if (id) emit finished(*id);  // a failed or cancelled run is shown too
      if (!error.isEmpty() || !id) emit failed(error.isEmpty() ? "no run was written" : error);
    });
  });
}

}  // namespace ps::ui
