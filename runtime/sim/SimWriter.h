#pragma once
// Writes a simulated run into a trace file: the run row, ranks, stages, layers, then its rows in
// step order (runtime/sim/SimRows.h, the same walk the app uses to show a run before saving it).

#include <cstdint>
#include <string>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "runtime/sim/Simulator.h"
#include "trace/Result.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {

Result<std::int64_t> writeSimulation(trace::TraceStore& store, const Plan& plan,
                                     const CostModel& cost, const SimResult& result,
                                     const std::string& name, const std::string& configJson,
                                     const std::string& source = "sim");

}  // namespace ps::runtime
