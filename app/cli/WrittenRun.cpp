#include "app/cli/WrittenRun.h"

#include <string>

#include "app/cli/CliCommon.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {

int summariseWrittenRun(
    trace::TraceStore& store, std::int64_t runId, const InterruptScope& interrupt,
    const std::function<void(const trace::RunTrace&, const trace::RunAnalysis&)>& print) {
  trace::LoadOptions load;
  load.cancel = interrupt.flag();
  auto run = trace::loadRun(store, runId, load);
  if (!run && interrupt.interrupted())
    return fail(
        "interrupted after run " + std::to_string(runId) + " was written (complete); no summary",
        kExitRunFailed);
  if (!run) return fail(run.error(), kExitRunFailed);
  print(*run, trace::analyzeRun(*run));
  return kExitOk;
}

}  // namespace ps::cli
