#include "ui/import/ImportJob.h"

#include <chrono>

#include "runtime/run/ImportRun.h"
#include "trace/ProgressThrottle.h"
#include "trace/import/ClockAlignment.h"

namespace ps::ui {
namespace {

struct Outcome {
  qint64 runId = 0;
  QString summary;
  QString error;
};

// The dialog's request as the core takes it. A schedule is simulated with the default uniform
// costs, as the CLI does without cost flags.
runtime::ImportRunRequest coreRequest(const ImportRequest& request) {
  runtime::ImportRunRequest core;
  core.format = request.format.toStdString();
  for (const QString& f : request.files)
    core.files.push_back(f.toStdString());
  core.name = importRunName(request);
  core.align = trace::import::parseAlignMode(request.align.toStdString())
                   .value_or(trace::import::AlignMode::Auto);
  for (auto it = request.ranks.begin(); it != request.ranks.end(); ++it)
    core.explicitRanks[it.key().toStdString()] = it.value();
  core.rulesFile = request.rulesFile.toStdString();
  core.threadsAsRanks = request.threadsAsRanks;
  return core;
}

Outcome outcomeOf(Result<runtime::ImportRunResult> imported) {
  Outcome out;
  if (!imported) {
    out.error = QString::fromStdString(imported.error());
    return out;
  }
  if (!imported->runId) {
    std::string error = imported->failure;
    for (const auto& warning : imported->warnings)  // a file that could not be taken back
      error += "; " + warning;
    out.error = QString::fromStdString(error);
    return out;
  }
  out.runId = *imported->runId;
  std::string summary = imported->summary;
  if (imported->simulated) summary += "change the costs in the Plan panel and rerun\n";
  for (const auto& note : imported->notes)
    summary += "note: " + note + '\n';
  out.summary = QString::fromStdString(summary);
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
    // Staged and throttled: at most one progress event per 50 ms reaches the GUI thread.
    trace::ProgressThrottle throttle(std::chrono::milliseconds(50));
    const runtime::ImportProgress report = [&](std::string_view stage, double fraction) {
      if (!throttle.pass(stage, fraction)) return;
      const QString name = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
      const int percent = static_cast<int>(fraction * 100.0);
      job.post([this, name, percent] { emit progress(name, percent); });
    };
    const Outcome outcome =
        outcomeOf(runtime::importRun(coreRequest(request), {path}, report, job.cancelFlag()));
    job.finish([this, outcome] {
      if (outcome.error.isEmpty())
        emit finished(outcome.runId, outcome.summary);
      else
        emit failed(outcome.error);
    });
  });
}

}  // namespace ps::ui
