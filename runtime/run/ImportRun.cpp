#include "runtime/run/ImportRun.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <utility>

#include "runtime/run/RunPlan.h"
#include "trace/import/ImportFormats.h"
#include "trace/import/ImportName.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/store/AbandonedWrite.h"

namespace ps::runtime {
namespace {

constexpr std::string_view kCancelled = "import cancelled";

bool cancelRequested(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

// A failure's message, or "import cancelled" when the user asked to stop: the reader's or the
// simulator's own words for it differ, a front end shows one.
std::string whyStopped(std::string message, const std::atomic<bool>* cancel) {
  return cancelRequested(cancel) ? std::string(kCancelled) : std::move(message);
}

// The format named, or the one every file is guessed to be.
Result<const trace::import::ImportFormat*> formatOf(const ImportRunRequest& request) {
  using trace::import::findImportFormat;
  if (!request.format.empty()) {
    if (const auto* format = findImportFormat(request.format)) return format;
    return Error{"unknown import format \"" + request.format +
                 "\" (valid: " + trace::import::importFormatNames() + ")"};
  }
  if (request.files.empty()) return Error{"import: no files (and no format named)"};
  const trace::import::ImportFormat* guessed = nullptr;
  for (const auto& file : request.files) {
    const auto* format = trace::import::guessImportFormat(file);
    if (format == nullptr)
      return Error{file + ": cannot tell its import format; name one of " +
                   trace::import::importFormatNames()};
    if (guessed != nullptr && format != guessed)
      return Error{file + ": looks like " + std::string(format->name) + ", the files before it " +
                   std::string(guessed->name) + "; one import takes one format"};
    guessed = format;
  }
  return guessed;
}

// The request's own consistency, before any file is read.
Status checkRequest(const ImportRunRequest& request, const trace::import::ImportFormat& format) {
  if (request.files.empty()) return Error{"import " + std::string(format.name) + ": no files"};
  for (const auto& [file, rank] : request.explicitRanks) {
    if (std::find(request.files.begin(), request.files.end(), file) == request.files.end())
      return Error{"--rank " + file + "=" + std::to_string(rank) + ": " + file +
                   " is not one of the files to import"};
    if (rank < 0) return Error{"--rank " + file + "=" + std::to_string(rank) + ": not a rank"};
  }
  if (format.kind != trace::import::ImportKind::Schedule) return {};
  const std::string name(format.name);
  if (request.files.size() != 1) return Error{"import " + name + ": give exactly one file"};
  if (request.threadsAsRanks)
    return Error{"--threads-as-ranks: " + name +
                 " is a schedule, its ranks are the file's; the flag is for profiles"};
  if (!request.explicitRanks.empty())
    return Error{"--rank: " + name +
                 " is a schedule, its ranks are the file's; --rank is for profiles"};
  return {};
}

// Takes back what a write that did not finish left (AbandonedWrite.h); a take-back that failed
// becomes a warning, since the import itself already failed with a better message.
void takeBack(ImportRunResult& result, trace::TraceStore store, std::optional<std::int64_t> runId,
              bool createdFile) {
  auto taken = trace::abandonWrite(std::move(store), runId, createdFile);
  if (!taken) result.warnings.push_back(taken.error());
}

Result<ImportRunResult> importProfiles(const ImportRunRequest& request, const ImportTarget& target,
                                       const ImportProgress& progress,
                                       const std::atomic<bool>* cancel, ImportRunResult result) {
  trace::import::ImportOptions options;
  options.format = result.format;
  options.name = result.name;
  options.align = request.align;
  options.explicitRanks = request.explicitRanks;
  options.threadsAsRanks = request.threadsAsRanks;
  if (!request.rulesFile.empty()) {
    auto rules = trace::import::MappingRules::load(request.rulesFile);
    if (!rules) return std::move(rules).takeError();
    options.rulesFile = request.rulesFile;
    options.recognizer = trace::import::OpRecognizer(std::move(*rules));
  }
  trace::import::ReadControl control;
  control.cancel = cancel;
  const auto stage = [&](std::string_view name) {
    control.progress = [&progress, name](double f) {
      if (progress) progress(name, f);
    };
    control.report(0.0);
  };

  stage("read");
  auto raws =
      trace::import::readTraceFiles(result.format, request.files, control, request.readThreads);
  if (!raws) return Error{whyStopped(raws.error(), cancel)};
  stage("align");
  auto run = trace::import::assembleImport(std::move(*raws), options, control);
  if (!run) return Error{whyStopped(run.error(), cancel)};
  if (cancelRequested(cancel)) return Error{std::string(kCancelled)};

  const bool created = !std::filesystem::exists(target.path);
  auto store = trace::TraceStore::open(target.path, trace::TraceStore::Mode::ReadWrite);
  if (!store) return std::move(store).takeError();
  stage("write");
  auto runId = trace::import::writeImportedRun(*store, *run, control);
  if (!runId) {
    // writeImportedRun deleted its run already; the file goes when this import created it.
    result.failure = whyStopped(runId.error(), cancel);
    takeBack(result, std::move(*store), std::nullopt, created);
    return result;
  }
  result.runId = *runId;
  result.summary = trace::import::formatImportSummary(*run);
  result.store.emplace(std::move(*store));
  return result;
}

std::string scheduleSummary(const BuiltPlan& built, const PlanSpec& simulation) {
  const Plan& plan = built.plan;
  std::ostringstream s;
  s << plan.numRanks << " rank(s), " << plan.numStages << " stage(s), " << plan.numMicrobatches()
    << " micro-batches; simulated with "
    << (simulation.costsFile.empty() ? "uniform costs" : "the costs of " + simulation.costsFile)
    << '\n';
  return s.str();
}

// A schedule has no timings: it is simulated with the request's costs.
Result<ImportRunResult> importSchedule(const ImportRunRequest& request, const ImportTarget& target,
                                       const ImportProgress& progress,
                                       const std::atomic<bool>* cancel, ImportRunResult result) {
  RunPlanRequest plan;
  plan.spec = request.simulation;
  plan.spec.scheduleFile = request.files.front();
  plan.backend = Backend::Sim;
  plan.source = result.format;
  plan.name = result.name;
  RunControl control;
  control.cancel = cancel;
  if (progress)
    control.progress = [&progress](RunStage stage, int done, int total) {
      progress(runStageName(stage), total > 0 ? static_cast<double>(done) / total : 0.0);
    };
  const bool created = !std::filesystem::exists(target.path);
  auto ran = runPlan(plan, {target.path}, control);
  if (!ran) return Error{whyStopped(ran.error(), cancel)};
  result.simulated = true;
  if (ran->built) result.notes = ran->built->notes;
  if (ran->status != trace::RunStatus::Complete) {
    result.failure = whyStopped(ran->message, cancel);
    if (ran->store) takeBack(result, std::move(*ran->store), ran->runId, created);
    return result;
  }
  result.runId = ran->runId;
  result.summary = scheduleSummary(*ran->built, request.simulation);
  result.store = std::move(ran->store);
  return result;
}

}  // namespace

Result<ImportRunResult> importRun(const ImportRunRequest& request, const ImportTarget& target,
                                  const ImportProgress& progress, const std::atomic<bool>* cancel) {
  auto format = formatOf(request);
  if (!format) return std::move(format).takeError();
  if (auto ok = checkRequest(request, **format); !ok) return std::move(ok).takeError();
  ImportRunResult result;
  result.format = std::string((*format)->name);
  result.name = request.name.empty()
                    ? trace::import::defaultImportName(result.format, request.files)
                    : request.name;
  if ((*format)->kind == trace::import::ImportKind::Schedule)
    return importSchedule(request, target, progress, cancel, std::move(result));
  return importProfiles(request, target, progress, cancel, std::move(result));
}

}  // namespace ps::runtime
