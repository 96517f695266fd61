#pragma once
// The sim backend (DESIGN §3): discrete-event simulation of a validated plan under a cost model.
// Each rank's compute stream runs its program in order; an op starts when its dependencies and
// its stream are free; each cross-rank dependency is a transfer that occupies its link
// (bytes / bandwidth, then latency) and delays the consumer.

#include <cstdint>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

struct SimulatedOp {
  std::int64_t start = 0, end = 0;
};

// One recorded op, compact (48 bytes: simulations of millions of ops stay cheap); kNoValue (-1)
// marks an absent stage, micro-batch, peer or byte count. toOpRecord() gives the store's form.
struct SimRecord {
  std::int64_t start_ns = 0, end_ns = 0, bytes = -1;
  std::int32_t rank = 0, stage = -1, microbatch = -1, step = 0, peer_rank = -1;
  OpKind kind = OpKind::F;
};
trace::OpRecord toOpRecord(const SimRecord& r);

struct SimResult {
  std::vector<SimulatedOp> ops;    // per OpGraph node (virtual nodes: their ready time)
  std::vector<SimRecord> records;  // compute + SEND/RECV ops in the order they were placed
  std::vector<trace::MemorySample> memory;
  std::vector<std::int64_t> peakMemory;           // per rank
  std::vector<std::int64_t> peakActivationBytes;  // per rank, above the static base
  std::int64_t makespan = 0;
};

// Stage cost helpers: sums over the stage's layers, scaled by the micro-batch and divided by the
// rank's speed.
std::int64_t opDurationNs(const Plan& plan, const CostModel& cost, const Action& a, int rank);
std::int64_t activationBytes(const Plan& plan, const CostModel& cost, int stage);
// Bytes crossing the boundary out of `stage` for one micro-batch (its last layer's activations).
std::int64_t boundaryBytes(const Plan& plan, const CostModel& cost, int stage);

Result<SimResult> simulate(const Plan& plan, const OpGraph& graph, const CostModel& cost);

// The run header (ranks, stages, layers) for a simulated or executed plan.
trace::RunHeader planRunHeader(const Plan& plan, const CostModel& cost, const std::string& source,
                               const std::string& name, const std::string& configJson);

}  // namespace ps::runtime
