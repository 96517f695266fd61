#include "ui/LoadedRun.h"

#include "trace/store/TraceReader.h"

namespace ps::ui {

Result<std::shared_ptr<const LoadedRun>> loadAndAnalyse(const QString& path, qint64 id) {
  auto run = trace::loadRunFromFile(path.toStdString(), id);
  if (!run) return std::move(run).takeError();
  auto loaded = std::make_shared<LoadedRun>();
  loaded->file = path;
  loaded->trace = std::make_shared<const trace::RunTrace>(std::move(*run));
  loaded->analysis = trace::analyzeRun(*loaded->trace);
  // The explanation is O(n log n) with a few passes per op: above kExplainMaxOps the window
  // opens without it (the Stats dock says so; `report` still computes it).
  if (loaded->trace->opCount() <= kExplainMaxOps)
    loaded->why = std::make_shared<const trace::RunExplanation>(trace::explainRun(*loaded->trace));
  return std::shared_ptr<const LoadedRun>(std::move(loaded));
}

}  // namespace ps::ui
