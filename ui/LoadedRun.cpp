#include "ui/LoadedRun.h"

#include "trace/store/TraceReader.h"

namespace ps::ui {

std::shared_ptr<const trace::RunExplanation> explainLoaded(const trace::RunTrace& run) {
  // The explanation is O(n log n) with a few passes per op: above kExplainMaxOps the window
  // opens without it (the Stats dock says so; `report` still computes it).
  if (run.opCount() > kExplainMaxOps) return nullptr;
  return std::make_shared<const trace::RunExplanation>(trace::explainRun(run));
}

std::shared_ptr<const LoadedRun> analyseInMemory(const QString& file,
                                                 std::shared_ptr<trace::RunTrace> run,
                                                 Explain explain) {
  auto loaded = std::make_shared<LoadedRun>();
  loaded->file = file;
  loaded->trace = std::move(run);
  loaded->analysis = trace::analyzeRun(*loaded->trace);
  if (explain == Explain::Now)
    loaded->why = explainLoaded(*loaded->trace);
  else
    loaded->explaining = loaded->trace->opCount() <= kExplainMaxOps;
  return loaded;
}

std::shared_ptr<const LoadedRun> withExplanation(const LoadedRun& run,
                                                 std::shared_ptr<const trace::RunExplanation> why) {
  auto explained = std::make_shared<LoadedRun>(run);
  explained->why = std::move(why);
  explained->explaining = false;
  return explained;
}

Result<std::shared_ptr<const LoadedRun>> loadAndAnalyse(const QString& path, qint64 id) {
  auto run = trace::loadRunFromFile(path.toStdString(), id);
  if (!run) return std::move(run).takeError();
  return analyseInMemory(path, std::make_shared<trace::RunTrace>(std::move(*run)));
}

void adoptRunId(const LoadedRun& run, qint64 id) {
  // Both were created non-const (analyseInMemory); only their file identity arrives late.
  const_cast<trace::RunTrace&>(*run.trace).info.id = id;
  const_cast<LoadedRun&>(run).analysis.run.id = id;
}

}  // namespace ps::ui
