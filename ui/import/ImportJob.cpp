#include "ui/import/ImportJob.h"

#include <chrono>
#include <sstream>

#include "runtime/run/RunPlan.h"
#include "trace/ProgressThrottle.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/store/TraceStore.h"

namespace ps::ui {
namespace {

struct Outcome {
  qint64 runId = 0;
  QString summary;
  QString error;
};

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list)
    out.push_back(s.toStdString());
  return out;
}

// A torch schedule has no timings: simulate it with the uniform default costs, as the CLI does.
Outcome importTorchCsv(const ImportRequest& request, const std::string& tracePath,
                       const std::atomic<bool>* cancel) {
  Outcome out;
  if (request.files.size() != 1) {
    out.error = "a torch pipelining CSV import takes exactly one file";
    return out;
  }
  runtime::RunPlanRequest job;
  job.spec.scheduleFile = request.files.front().toStdString();
  job.backend = runtime::Backend::Sim;
  job.source = "torch-csv";
  job.name = importRunName(request);
  runtime::RunControl control;
  control.cancel = cancel;
  auto result = runtime::runPlan(job, {tracePath}, control);
  if (!result || result->status != trace::RunStatus::Complete) {
    out.error = QString::fromStdString(!result ? result.error() : result->message);
    return out;
  }
  const runtime::Plan& plan = result->built->plan;
  std::ostringstream s;
  s << plan.numRanks << " rank(s), " << plan.numStages << " stage(s), " << plan.numMicrobatches()
    << " micro-batches; simulated with uniform costs (change them in the Plan panel and rerun)\n";
  for (const auto& note : result->built->notes)
    s << "note: " << note << '\n';
  out.runId = *result->runId;
  out.summary = QString::fromStdString(s.str());
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
    Outcome outcome;
    // Staged and throttled: at most one progress event per 50 ms reaches the GUI thread.
    trace::ProgressThrottle throttle(std::chrono::milliseconds(50));
    auto report = [&](const QString& stage, double fraction) {
      if (!throttle.pass(stage.toStdString(), fraction)) return;
      const int percent = static_cast<int>(fraction * 100.0);
      job.post([this, stage, percent] { emit progress(stage, percent); });
    };
    if (request.format == "torch-csv") {
      outcome = importTorchCsv(request, path, cancel);
    } else {
      trace::import::ReadControl control;
      control.cancel = cancel;
      control.progress = [&](double f) { report("read", f); };
      trace::import::ImportOptions options;
      options.format = request.format.toStdString();
      options.name = importRunName(request);
      options.align = trace::import::parseAlignMode(request.align.toStdString())
                          .value_or(trace::import::AlignMode::Auto);
      bool ok = true;
      if (!request.rulesFile.isEmpty()) {
        auto rules = trace::import::MappingRules::load(request.rulesFile.toStdString());
        if (!rules) {
          outcome.error = QString::fromStdString(rules.error());
          ok = false;
        } else {
          options.rulesFile = request.rulesFile.toStdString();
          options.recognizer = trace::import::OpRecognizer(std::move(*rules));
        }
      }
      auto raws = ok ? trace::import::readTraceFiles(options.format, toStd(request.files), control)
                     : Result<std::vector<trace::import::RawRankTrace>>(Error{""});
      if (ok && !raws) outcome.error = QString::fromStdString(raws.error());
      if (ok && raws) {
        report("align", 0.0);
        auto run = trace::import::assembleImport(std::move(*raws), options);
        if (!run) {
          outcome.error = QString::fromStdString(run.error());
        } else if (cancel->load()) {
          outcome.error = "import cancelled";
        } else {
          auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
          if (!store) {
            outcome.error = QString::fromStdString(store.error());
          } else {
            control.progress = [&](double f) { report("write", f); };
            auto id = trace::import::writeImportedRun(*store, *run, control);
            if (!id) {
              outcome.error = QString::fromStdString(id.error());
            } else {
              outcome.runId = *id;
              outcome.summary = QString::fromStdString(trace::import::formatImportSummary(*run));
            }
          }
        }
      }
    }
    job.finish([this, outcome] {
      if (outcome.error.isEmpty())
        emit finished(outcome.runId, outcome.summary);
      else
        emit failed(outcome.error);
    });
  });
}

}  // namespace ps::ui
