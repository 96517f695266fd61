#pragma once
// A simulated run's rows in the order the file gets them (per step: the compute ops in the order
// they were placed, then each transfer's SEND and RECV, then that step's memory samples), written
// to a file or built in memory from the same walk, so that a run the app shows before it is saved
// equals the one it reads back afterwards.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/sim/Simulator.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

// Calls `op` and `memory` for every row in write order; stops (returning false) as soon as one
// returns false.
bool visitSimRows(const SimResult& sim, int steps,
                  const std::function<bool(const trace::OpRecord&)>& op,
                  const std::function<bool(const trace::MemorySample&)>& memory);

struct SimWrite {
  std::int64_t runId = 0;
  trace::RunStatus status = trace::RunStatus::Complete;
  std::string message;
};

// Writes the run in transactions of a few thousand rows, polling `cancel` between them (a cancel
// ends it 'cancelled' with what was written so far; a failed write ends it 'failed'). `begun`,
// when given, hears the run's id as soon as its row exists. An error: the run was never begun.
Result<SimWrite> writeSimRun(trace::TraceStore& store, const trace::RunHeader& header,
                             const SimResult& sim, int steps, const std::atomic<bool>* cancel,
                             const std::function<void(std::int64_t runId)>& begun = {});

// The run as loadRun will read it back once writeSimRun has written it complete (its id is
// header.info.id until then).
trace::RunTrace simRunTrace(const trace::RunHeader& header, const SimResult& sim, int steps);

}  // namespace ps::runtime
