#pragma once
// The run a command has just written, read back for its one summary line (sim, run, import):
// each command says what its line shows; the reading back, and what an interrupt or a bad read
// then means, are the same for all three.

#include <cstdint>
#include <functional>

#include "app/cli/CliInterrupt.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceStore.h"

namespace ps::cli {

// Reads run `runId` back and hands it with its analysis to `print`; returns kExitOk, or
// kExitRunFailed with the reason on stderr (an interrupt now leaves the complete run as it is
// and says so).
int summariseWrittenRun(
    trace::TraceStore& store, std::int64_t runId, const InterruptScope& interrupt,
    const std::function<void(const trace::RunTrace&, const trace::RunAnalysis&)>& print);

}  // namespace ps::cli
