#pragma once
// The sim backend (DESIGN §3): discrete-event simulation of a validated plan under a cost model.
// Each rank's compute stream runs its program in order; an op starts when its dependencies and
// its stream are free; each cross-rank dependency is a transfer that occupies its link
// (bytes / bandwidth, then latency) and delays the consumer.
//
// Two engines, one result: with free links (no bandwidth limit, the uniform flags' default) no
// transfer waits for another and ReplaySimulation places the ops without events; links of
// finite bandwidth queue first come, first served and take EventSimulation (time-ordered).

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

// One recorded op, compact (48 bytes: simulations of millions of ops stay cheap); kNoValue (-1)
// marks an absent stage, micro-batch, peer or byte count. toOpRecord() gives the store's form.
struct SimRecord {
  std::int64_t start_ns = 0, end_ns = 0, bytes = -1;
  std::int32_t rank = 0, stage = -1, microbatch = -1, step = 0, peer_rank = -1;
  OpKind kind = OpKind::F;
  // An A2A op that is one of NestPipe's fetch stages before its gather (fetchStageName), or -1.
  std::int8_t fetchStage = -1;
};
// NestPipe's inter-batch fetch stages before the gather: "prefetch", "H2D", "key routing",
// "lookup" (EmbeddingFetch::stageNs, in that order).
std::string_view fetchStageName(int stage);
inline constexpr int kFetchStages = 4;
trace::OpRecord toOpRecord(const SimRecord& r);

// One transfer of a stage boundary's data between two ranks: a SEND on the producer's rank over
// [start, send_end) and a RECV on the consumer's over [start, arrival). Stored compactly (one
// 48-byte entry instead of two records: a plan of millions of ops has almost as many
// transfers); sendRecord and recvRecord give the two records.
struct SimTransfer {
  std::int64_t start_ns = 0, send_end_ns = 0, arrival_ns = 0, bytes = 0;
  std::int32_t producer = 0;         // the producing compute op: its index in records
  std::int32_t consumer_stage = -1;  // the receiving op's stage (the RECV's stage)
  std::int32_t dst_rank = 0;
  OpKind kind = OpKind::SEND_F;  // SEND_F (activations) or SEND_B (gradients)
};

struct SimResult {
  // One per compute op, in the order they were placed, then any OFFLOAD / RELOAD (BPipe, on the
  // owner's rank, peer = the holder) and AR records.
  std::vector<SimRecord> records;
  std::vector<SimTransfer> transfers;  // in the order they were placed
  // Per rank bytes in use from t on: every rank's first sample at t = 0, then one per instant
  // at which its memory changes, each rank's in time order (ranks interleaved).
  std::vector<trace::MemorySample> memory;
  std::vector<std::int64_t> peakMemory;           // per rank
  std::vector<std::int64_t> peakActivationBytes;  // per rank, above the static base
  std::int64_t makespan = 0;
};

// A transfer's two records: the SEND on the producer's rank, the RECV on the consumer's.
SimRecord sendRecord(const SimResult& result, const SimTransfer& t);
SimRecord recvRecord(const SimResult& result, const SimTransfer& t);
// Every record: the compute ops, then each transfer's SEND and RECV (what the trace file gets).
std::vector<SimRecord> allRecords(const SimResult& result);

// Stage cost helpers: sums over the stage's layers, scaled by the micro-batch and divided by the
// rank's speed.
std::int64_t opDurationNs(const Plan& plan, const CostModel& cost, const Action& a, int rank);
std::int64_t activationBytes(const Plan& plan, const CostModel& cost, int stage);
// Bytes crossing the boundary out of `stage` for one micro-batch (its last layer's activations).
std::int64_t boundaryBytes(const Plan& plan, const CostModel& cost, int stage);

// `graph` must be validatePlan(plan)'s. `cancel`, when given, is polled every few thousand ops
// (Ctrl-C, a superseded GUI request); once set the result is Error{"simulation cancelled"}.
Result<SimResult> simulate(const Plan& plan, const OpGraph& graph, const CostModel& cost,
                           const std::atomic<bool>* cancel = nullptr);

// The run header (ranks, stages, layers) for a simulated or executed plan.
trace::RunHeader planRunHeader(const Plan& plan, const CostModel& cost, const std::string& source,
                               const std::string& name, const std::string& configJson);

}  // namespace ps::runtime
