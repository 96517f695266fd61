#include "ui/RunController.h"

#include <QMetaObject>

#include "ui/ProgressThrottle.h"

#include "runtime/exec/CpuExecutor.h"
#include "runtime/sim/SimWriter.h"
#include "runtime/sim/Simulator.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

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
  cancel();  // a new request supersedes the running one
  joinWorker();
  ++generation_;
  if (request.backend == "cpu")
    startCpu(request, path);
  else
    runSim(request, path);
}

void RunController::runSim(const RunRequest& request, const QString& path) {
  emit progress("plan", 0, 4);
  auto built = runtime::buildPlan(request.spec);
  if (!built) return emit failed(QString::fromStdString(built.error()));
  emit progress("run", 1, 4);
  auto result = runtime::simulate(built->plan, built->graph, built->cost);
  if (!result) return emit failed(QString::fromStdString(result.error()));
  if (auto caps = runtime::checkMemoryCaps(built->cost, result->peakMemory); !caps)
    return emit failed(QString::fromStdString(caps.error()));
  emit progress("write", 2, 4);
  auto store = trace::TraceStore::open(path.toStdString(), trace::TraceStore::Mode::ReadWrite);
  if (!store) return emit failed(QString::fromStdString(store.error()));
  auto id = runtime::writeSimulation(*store, built->plan, built->cost, *result,
                                     runtime::planRunName(built->plan), built->configJson);
  if (!id) return emit failed(QString::fromStdString(id.error()));
  emit progress("load", 3, 4);
  emit finished(*id);
}

void RunController::startCpu(const RunRequest& request, const QString& path) {
  auto built = runtime::buildPlan(request.spec);
  if (!built) return emit failed(QString::fromStdString(built.error()));
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  done_ = false;
  const std::uint64_t generation = generation_;
  auto cancel = cancel_;
  auto plan = std::make_shared<runtime::BuiltPlan>(std::move(*built));
  const std::string file = path.toStdString();
  const RunRequest req = request;
  // Posts `fn` to the GUI thread, dropped if a newer job has started since.
  auto post = [this, generation](auto fn) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, fn] {
          if (generation == generation_) fn();
        },
        Qt::QueuedConnection);
  };
  worker_ = std::thread([this, plan, cancel, file, req, post] {
    runtime::CpuRunOptions options;
    options.model.block =
        req.model == "mlp" ? runtime::BlockType::Mlp : runtime::BlockType::Transformer;
    options.model.hidden = req.hidden;
    options.model.heads = 4;
    options.model.layers = plan->plan.numLayers;
    options.optimizer.kind = runtime::OptimizerKind::Adam;
    options.optimizer.lr = 0.001f;
    options.cancel = cancel.get();
    const int steps = plan->plan.steps;
    // Staged: plan (built) -> run (steps) -> write (indexes) -> load (on the GUI thread).
    ProgressThrottle throttle;
    auto stage = [&](const char* name, int done, int total) {
      if (throttle.pass(name, done, total))
        post([this, name, done, total] { emit progress(name, done, total); });
    };
    stage("plan", 1, 1);
    options.onStepWritten = [&](int step) { stage("run", step + 1, steps); };
    auto store = trace::TraceStore::open(file, trace::TraceStore::Mode::ReadWrite);
    if (!store) {
      done_ = true;
      const QString e = QString::fromStdString(store.error());
      return post([this, e] { emit failed(e); });
    }
    auto header = runtime::planRunHeader(
        plan->plan, plan->cost, "cpu",
        runtime::planRunName(plan->plan) + " cpu " + req.model.toStdString(), plan->configJson);
    header.layers.clear();
    auto writer = trace::TraceWriter::begin(*store, header);
    if (!writer) {
      done_ = true;
      const QString e = QString::fromStdString(writer.error());
      return post([this, e] { emit failed(e); });
    }
    auto result = runtime::runOnCpuThreads(plan->plan, plan->graph, options, &*writer);
    const auto status = result ? result->status : trace::RunStatus::Failed;
    const std::string message = result ? result->message : result.error();
    stage("write", 0, 1);
    (void)writer->finish(status, message);
    const qint64 id = writer->runId();
    done_ = true;
    if (status == trace::RunStatus::Complete)
      post([this, id] { emit finished(id); });
    else {
      const QString e = QString::fromStdString(message);
      post([this, id, e] {
        emit finished(id);
        emit failed(e);
      });
    }
  });
}

}  // namespace ps::ui
