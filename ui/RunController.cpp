#include "ui/RunController.h"

#include <chrono>
#include <optional>

#include "runtime/run/Backends.h"
#include "trace/ProgressThrottle.h"
#include "ui/LoadedRun.h"

namespace ps::ui {

RunController::RunController(QObject* parent) : QObject(parent), jobs_(this) {
  connect(this, &RunController::progress, this, [this](const QString& stage, int done, int total) {
    if (training_ && stage == "run") trainingProgress_ = QString("step %1/%2").arg(done).arg(total);
  });
}

RunController::~RunController() {
  explains_.dropQueued();  // explanations not begun are not needed once the window goes
  explains_.waitForDone();
  waitForSaves();
}

void RunController::waitForSaves() {
  saves_.waitForDone();
}

void RunController::cancel() {
  jobs_.cancel();
}

namespace {

// What a job's progress has shown so far.
struct ShownProgress {
  trace::ProgressThrottle throttle{std::chrono::milliseconds(50)};
  int done = -1;
  std::chrono::steady_clock::time_point at;
};

// Staged, throttled progress posted to the GUI thread while the job is current. A training run's
// steps also count one by one (at most every 50 ms): the throttle's one percent of a 1000-step
// run is ten steps, and the bar sat at "run 0/1000" while Stats showed three steps recorded.
runtime::RunControl jobControl(RunController* controller, const JobTracker::Job& job,
                               ShownProgress& shown) {
  runtime::RunControl control;
  control.cancel = job.cancelFlag();
  control.progress = [controller, &job, &shown](runtime::RunStage stage, int done, int total) {
    const std::string name(runtime::runStageName(stage));
    const auto now = std::chrono::steady_clock::now();
    bool show = shown.throttle.pass(name, done, total);
    if (!show && stage == runtime::RunStage::Run && done != shown.done &&
        now - shown.at >= std::chrono::milliseconds(50))
      show = true;
    if (!show) return;
    shown.done = done;
    shown.at = now;
    job.post([controller, stage = QString::fromStdString(name), done, total] {
      emit controller->progress(stage, done, total);
    });
  };
  return control;
}

}  // namespace

void RunController::start(const runtime::RunPlanRequest& request, const QString& path) {
  training_ = false;
  if (!runtime::backendInfo(request.backend).trainsModel && request.write)
    return startSimulation(request, path);
  training_ = runtime::backendInfo(request.backend).trainsModel;
  trainingProgress_.clear();
  jobs_.start([this, request, file = path.toStdString()](const JobTracker::Job& job) {
    ShownProgress shown;
    runtime::RunControl control = jobControl(this, job, shown);
    control.begun = [this, &job](std::int64_t runId) {
      job.post([this, runId] { emit began(runId); });
    };
    std::optional<qint64> id;
    QString error;
    bool wasCancelled = false;
    {
      auto result = runtime::runPlan(request, {file}, control);  // closes the file when done
      if (!result) {
        error = QString::fromStdString(result.error());
      } else {
        id = result->runId;
        wasCancelled = result->status == trace::RunStatus::Cancelled;
        if (result->status != trace::RunStatus::Complete)
          error = QString::fromStdString(result->message);
      }
    }
    job.finish([this, id, error, wasCancelled] {
      if (id) emit finished(*id);  // a failed or cancelled run is shown too
      if (wasCancelled)
        emit cancelled(error);
      else if (!error.isEmpty() || !id)
        emit failed(error.isEmpty() ? "no run was written" : error);
    });
  });
}

void RunController::startSimulation(const runtime::RunPlanRequest& request, const QString& path) {
  const qint64 placeholder = nextPlaceholder_--;
  jobs_.start([this, request, path, placeholder](const JobTracker::Job& job) {
    ShownProgress shown;
    const runtime::RunControl control = jobControl(this, job, shown);
    auto preview = runtime::previewPlan(request, control, placeholder);
    if (!preview) {
      job.finish([this, error = QString::fromStdString(preview.error())] { emit failed(error); });
      return;
    }
    if (job.cancelled()) {
      job.finish([this] { emit cancelled("cancelled before it was shown"); });
      return;
    }
    std::shared_ptr<const LoadedRun> loaded = analyseInMemory(path, preview->trace, Explain::Later);
    auto kept = std::make_shared<const runtime::PlanPreview>(std::move(*preview));
    // Queued on the GUI thread, so only a run that reached the window is saved.
    job.finish([this, loaded, kept, path, placeholder] {
      queueSave(kept, path, placeholder);
      emit previewed(loaded, placeholder);
      if (loaded->explaining) queueExplanation(loaded);
    });
  });
}

void RunController::queueExplanation(const std::shared_ptr<const LoadedRun>& run) {
  // Only the trace is read off the GUI thread: the LoadedRun itself may get its file id meanwhile
  // (adoptRunId), so the explained copy is made back on the GUI thread.
  ++explanationsPending_;
  explains_.start([this, run](const JobTracker::Job& job) {
    std::shared_ptr<const trace::RunExplanation> why = explainLoaded(*run->trace);
    job.finish([this, run, why] {
      --explanationsPending_;
      emit explained(run, why);
    });
  });
}

void RunController::queueSave(const std::shared_ptr<const runtime::PlanPreview>& preview,
                              const QString& path, qint64 placeholder) {
  ++savesPending_;
  saves_.start([this, preview, file = path.toStdString(), placeholder](const JobTracker::Job& job) {
    qint64 begunId = -1;
    runtime::RunControl control;
    control.begun = [&](std::int64_t id) {
      begunId = id;
      job.post([this, placeholder, id] { emit saveBegan(placeholder, id); });
    };
    auto saved = runtime::savePreview(*preview, {file}, control);
    QString error;
    if (!saved)
      error = QString::fromStdString(saved.error());
    else if (saved->status != trace::RunStatus::Complete)
      error = QString::fromStdString(saved->message);
    if (saved) saved->store.reset();  // committed and closed before the window hears of it
    job.finish([this, placeholder, begunId, error] {
      --savesPending_;
      if (error.isEmpty())
        emit this->saved(begunId);
      else
        emit saveFailed(placeholder, begunId, error);
    });
  });
}

}  // namespace ps::ui
