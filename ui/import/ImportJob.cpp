#include "ui/import/ImportJob.h"

#include <chrono>
#include <functional>
#include <sstream>

#include "runtime/run/RunPlan.h"
#include "trace/ProgressThrottle.h"
#include "trace/import/ImportFormats.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/store/AbandonedWrite.h"
#include "trace/store/TraceStore.h"

namespace ps::ui {
namespace {

struct Outcome {
  qint64 runId = 0;
  QString summary;
  QString error;
};

using Report = std::function<void(const QString& stage, double fraction)>;

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list)
    out.push_back(s.toStdString());
  return out;
}

Outcome failure(const std::string& message) {
  Outcome out;
  out.error = QString::fromStdString(message);
  return out;
}

// A schedule (torch-csv) has no timings: simulate it with the uniform default costs, as the CLI
// does without cost flags.
Outcome importSchedule(const ImportRequest& request, const std::string& tracePath,
                       const std::atomic<bool>* cancel) {
  if (request.files.size() != 1) return failure("a schedule import takes exactly one file");
  runtime::RunPlanRequest job;
  job.spec.scheduleFile = request.files.front().toStdString();
  job.backend = runtime::Backend::Sim;
  job.source = request.format.toStdString();
  job.name = importRunName(request);
  runtime::RunControl control;
  control.cancel = cancel;
  auto result = runtime::runPlan(job, {tracePath}, control);
  if (!result) return failure(result.error());
  if (result->status != trace::RunStatus::Complete) {
    // As a profile import does, and the CLI: a cancelled or failed import leaves no run of its
    // own in the file (the file itself is the user's and stays).
    if (result->store) (void)trace::abandonWrite(std::move(*result->store), result->runId, false);
    return failure(result->message);
  }
  const runtime::Plan& plan = result->built->plan;
  std::ostringstream s;
  s << plan.numRanks << " rank(s), " << plan.numStages << " stage(s), " << plan.numMicrobatches()
    << " micro-batches; simulated with uniform costs (change them in the Plan panel and rerun)\n";
  for (const auto& note : result->built->notes)
    s << "note: " << note << '\n';
  Outcome out;
  out.runId = *result->runId;
  out.summary = QString::fromStdString(s.str());
  return out;
}

// Profiles: read every file, assemble one run in memory, and only then write it.
Outcome importProfiles(const ImportRequest& request, const std::string& tracePath,
                       const std::atomic<bool>* cancel, const Report& report) {
  trace::import::ReadControl control;
  control.cancel = cancel;
  control.progress = [&](double f) { report("read", f); };
  trace::import::ImportOptions options;
  options.format = request.format.toStdString();
  options.name = importRunName(request);
  options.align = trace::import::parseAlignMode(request.align.toStdString())
                      .value_or(trace::import::AlignMode::Auto);
  options.threadsAsRanks = request.threadsAsRanks;
  if (!request.rulesFile.isEmpty()) {
    auto rules = trace::import::MappingRules::load(request.rulesFile.toStdString());
    if (!rules) return failure(rules.error());
    options.rulesFile = request.rulesFile.toStdString();
    options.recognizer = trace::import::OpRecognizer(std::move(*rules));
  }
  auto raws = trace::import::readTraceFiles(options.format, toStd(request.files), control);
  if (!raws) return failure(raws.error());
  report("align", 0.0);
  auto run = trace::import::assembleImport(std::move(*raws), options);
  if (!run) return failure(run.error());
  if (control.cancelled()) return failure("import cancelled");
  auto store = trace::TraceStore::open(tracePath, trace::TraceStore::Mode::ReadWrite);
  if (!store) return failure(store.error());
  control.progress = [&](double f) { report("write", f); };
  auto id = trace::import::writeImportedRun(*store, *run, control);
  if (!id) return failure(id.error());
  Outcome out;
  out.runId = *id;
  out.summary = QString::fromStdString(trace::import::formatImportSummary(*run));
  return out;
}

}  // namespace

ImportJob::ImportJob(QObject* parent) : QObject(parent), jobs_(this) {}

ImportJob::~ImportJob() = default;

void ImportJob::cancel() {
  jobs_.cancel();
}

void ImportJob::start(const ImportRequest& request, const QString& tracePath) {
  jobs_.start([this, request, path = tracePath.toStdString()](const JobTracker::Job& job) {
    const std::atomic<bool>* cancel = job.cancelFlag();
    // Staged and throttled: at most one progress event per 50 ms reaches the GUI thread.
    trace::ProgressThrottle throttle(std::chrono::milliseconds(50));
    const Report report = [&](const QString& stage, double fraction) {
      if (!throttle.pass(stage.toStdString(), fraction)) return;
      const int percent = static_cast<int>(fraction * 100.0);
      job.post([this, stage, percent] { emit progress(stage, percent); });
    };
    const auto* format = trace::import::findImportFormat(request.format.toStdString());
    Outcome outcome;
    if (format == nullptr)
      outcome = failure("unknown import format \"" + request.format.toStdString() +
                        "\" (valid: " + trace::import::importFormatNames() + ")");
    else if (format->kind == trace::import::ImportKind::Schedule)
      outcome = importSchedule(request, path, cancel);
    else
      outcome = importProfiles(request, path, cancel, report);
    job.finish([this, outcome] {
      if (outcome.error.isEmpty())
        emit finished(outcome.runId, outcome.summary);
      else
        emit failed(outcome.error);
    });
  });
}

}  // namespace ps::ui
