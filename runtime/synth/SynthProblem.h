#pragma once
// What the schedule synthesiser (issue 36 §1) searches over, read once off a skeleton plan: every
// compute op of one step (F, and I + W or B per stage and micro-batch) with its rank, duration and
// memory change, the dependencies between them with the transfer each one crosses, and every
// rank's static memory and cap. The skeleton (1F1B's, or interleaved 1F1B's for V > 1, with the
// backward split when asked) gives the placement, the layer cut and the OPT that closes each
// rank's program; its order is thrown away.
//
// Memory is counted as the simulator counts it (runtime/sim/MemoryTracker.h): a rank's static
// bytes, plus each F's activations from the F's start until its last backward op (W, or B) ends.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"

namespace ps::runtime::synth {

struct SynthOp {
  Action action;
  int rank = 0;
  std::int64_t durationNs = 0;
  std::int64_t allocBytes = 0;  // F: activations kept from its start
  std::int64_t freeBytes = 0;   // the last backward op: given back at its end
};

// A dependency of an op on another; across ranks it is a transfer on a link.
struct SynthDep {
  std::int32_t op = 0;         // the producer
  std::int64_t occupyNs = 0;   // link time of the transfer (0: same rank or a free link)
  std::int64_t latencyNs = 0;  // the link's latency (0 on the same rank)
  std::int32_t channel = -1;   // the link queue it waits in (-1: none, it never queues)
};

struct SynthProblem {
  std::shared_ptr<const BuiltPlan> skeleton;
  std::vector<SynthOp> ops;
  std::vector<std::int32_t> depBegin;  // CSR: deps of op i are deps[depBegin[i]..depBegin[i+1])
  std::vector<SynthDep> deps;
  std::vector<std::int32_t> succBegin;     // CSR: consumers of op i (indices into deps)
  std::vector<std::int32_t> succs;         // index of the consumer's SynthDep entry
  std::vector<std::int32_t> consumerOf;    // [dep index] the op that has this dep
  std::vector<std::vector<Action>> tails;  // per rank: the skeleton's actions after compute (OPT)
  std::vector<std::int64_t> baseBytes;     // per rank: static memory
  std::vector<std::int64_t> capBytes;      // per rank: the cap (INT64_MAX: none)
  int channels = 0;

  int numRanks() const { return static_cast<int>(baseBytes.size()); }
  std::size_t size() const { return ops.size(); }
};

// How the synthesiser is asked: the plan's knobs (stages, micro-batches, chunks, costs, links,
// boundaries, --rank-memory-gb as the caps) and whether the backward is split into I and W.
struct SynthRequest {
  PlanSpec spec;
  bool splitBackward = true;
  // Where a rank's V chunks sit: "looped" (interleaved 1F1B's: stage s on rank s mod P) or "v"
  // (ZB-V's V-shape at V = 2: rank r holds stages r and 2P-1-r, so the last stage is on rank 0).
  // Empty: "v" at V = 2, else "looped".
  std::string placement;
};

// The skeleton built without the caps (so that the cut is the uncapped one every generator gets),
// the caps applied to the search. Errors name the knob a synthesised schedule cannot take
// (replicas, token slices, recompute, asynchronous weights, ...).
[[nodiscard]] Result<SynthProblem> synthProblem(const SynthRequest& request);

// "looped" or "v": the request's placement, its default filled in.
std::string placementOf(const SynthRequest& request);

// The skeleton's spec: what synthProblem builds and what a generator is compared under (the same
// cut: `boundaries` set to the skeleton's).
PlanSpec skeletonSpec(const SynthRequest& request);

}  // namespace ps::runtime::synth
