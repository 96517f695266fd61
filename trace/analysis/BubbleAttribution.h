#pragma once
// Why each rank is idle: every idle interval of every step (DESIGN §4: the step's span less the
// union of the rank's compute ops) split into causes read off the recorded ops and their
// dependencies (StepGraph). For a gap that ends at op X:
//   warm-up     before the rank's first pipeline op (F B I W R) of the step;
//   drain       after its last one, up to the end of the step's last pipeline op on any rank;
//   barrier     after that, up to the step's end: waiting for other ranks' optimizer steps;
//   transfer    inside the pipeline, the part of X's wait after the producer of its input had
//               finished: the data was on the link;
//   imbalance   the part before, when the chain of ops that held the producer crossed a rank
//               with more work in the step than this one (by kSlowerBy or more);
//   dependency  the part before, otherwise;
//   collective  an all-to-all, embedding fetch or gradient all-reduce (A2A and AR ops,
//               CommWaits.h): the part of X's wait spent in its producer's all-to-all (which
//               holds the output), in X's own fetch, or, with nothing else to explain it (inside
//               the pipeline, or after the rank's last pipeline op: drain and barrier give way to
//               it), while the rank's collective lane was busy (a serial all-to-all holds the
//               compute stream; the optimizer waits for the last all-to-all and the all-reduce);
//   order       inside the pipeline, the part of a wait (dependency, imbalance, transfer or
//               other; not a collective's, which may hold the rank's own stream) from the time a
//               later op of the rank's own step was ready and could have run (OrderWaits.h):
//               the rank's order held it, not its inputs;
//   other       what the recorded dependencies do not explain (X's inputs were ready before the
//               gap, or X has none: runtime overhead, ops without stage or micro-batch).
// The parts of a rank add up exactly to its idle time.

#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {

enum class IdleCause : std::uint8_t {
  Warmup,
  Drain,
  Dependency,
  Transfer,
  Imbalance,
  Barrier,
  Collective,
  Order,
  Other
};
inline constexpr int kIdleCauseCount = static_cast<int>(IdleCause::Other) + 1;

// "warm-up", "drain", "dependency", "transfer", "imbalance", "barrier", "collective", "order",
// "other".
std::string_view idleCauseLabel(IdleCause cause);
// The JSON field: "warmup_ns", ..., "other_ns".
std::string_view idleCauseJsonKey(IdleCause cause);

// A rank is "slower" for the imbalance cause when its step's pipeline work exceeds this rank's
// by this factor (real runs differ by a few per cent from noise alone).
inline constexpr double kSlowerBy = 1.05;

struct BubbleBreakdown {
  std::int64_t ns[kIdleCauseCount] = {};
  std::int64_t& operator[](IdleCause c) { return ns[static_cast<int>(c)]; }
  std::int64_t operator[](IdleCause c) const { return ns[static_cast<int>(c)]; }
  std::int64_t total() const;
  BubbleBreakdown& operator+=(const BubbleBreakdown& other);
};

struct IdlePart {
  int step = 0;
  std::int64_t start = 0, end = 0;
  IdleCause cause = IdleCause::Other;
  // dependency / imbalance: the producer; transfer: the receive; order: the op that was ready
  OpRef waitedFor;
  OpRef before;  // the op that ended the gap (invalid for warm-up before nothing, drain, barrier)
};

struct BubbleAttribution {
  std::vector<BubbleBreakdown> ranks;  // summed over steps (all zero for a rank not present)
  BubbleBreakdown run;                 // summed over ranks
  std::vector<bool> present;           // per rank slot (PresentRanks.h): only these are counted
  std::size_t rankCount = 0;           // how many are
  std::int64_t spanSumNs = 0;          // Σ over steps of the span: a rank's share = ns / this
  std::vector<std::vector<IdlePart>> parts;  // per rank, by (step, start)
};

BubbleAttribution attributeBubbles(const StepGraph& graph);

}  // namespace ps::trace
