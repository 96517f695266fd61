#pragma once
// Checks a plan request before it runs, so that the plan panel can show what is wrong at the knob
// that is wrong (DESIGN §7.7: the message is the runtime's own). Qt-free, so it is tested without
// widgets.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run/RunPlan.h"

namespace ps::ui {

// The panel's knobs, as far as a message can name one.
enum class Knob {
  None,
  Schedule,
  Stages,
  Microbatches,
  Chunks,
  Layers,
  Steps,
  Backend,
  Model,
  Hidden,
  Optimizer,
  LinkGbps,
  LinkLatency,
  ActMb,
  FwdUs,
  BwdUs,
  WgradUs,
  SplitBackward,
  ForwardOnly,
  RankSpeed,
  RankMemory,
  DataParallel,
  Topology,
  InterGbps,  // and the inter-node latency beside it
  Mapping,
  BalanceActivations,
  Frozen,          // the frozen forward and its placement
  StageGraph,      // GraphPipe's stage DAG
  AllToAll,        // Piper's / a GNN halo's all-to-all and its placement
  EmbeddingFetch,  // NestPipe's fetch and its placement
  WeightVersions,  // PipeDream's stash, none (latest) or XPipe's prediction
  Sequences,       // token slices (TeraPipe), sequence lengths and their micro-batching (DynaPipe)
  Partition,       // and the time slack beside it; the last: showProblem walks Schedule..Partition
};

// The knob a runtime message names first (by position in the message): "--microbatches" or "m="
// the micro-batches, "p=" or "ranks" the stages, "--link-gbps" the bandwidth, "hidden" or
// "heads" the hidden size, and so on; None when it names none of them.
Knob knobNamedIn(std::string_view message);

// The knob table's row (runtime/run/PlanKnobs.h) of a knob the panel draws from the table:
// "frozen_us" for Frozen; empty for the panel's own knobs and Sequences (two rows).
std::string_view knobTableKey(Knob knob);

struct KnobProblem {
  std::string message;
  Knob knob = Knob::None;
};

// Plans with at most this many (stage, micro-batch) pairs, P·V·M, and, when the partitioner
// places the layers, at most kPartitionLimit steps of its S·L² search (S = P·V stages, L
// layers), are built in full on every change; larger ones only get the cheap checks (cost flags,
// model options, layer count) and the rest is left to the run. Each limit is about 10 ms in the
// Debug+ASan build.
inline constexpr long kFullCheckLimit = 8192;
inline constexpr long kPartitionLimit = 2000000;

// What would stop `request` before it runs: the plan (buildPlan with one step), the cost flags,
// the model options, a plan feature the model backend never runs (runtime::checkPlanFeatures)
// and, last, `unavailable` (non-empty: why the chosen backend cannot run here, its registry row's
// availability): a --frozen-us plan hears that cuda never runs it before it hears there is no
// GPU. `refusals`, when given, receives per registry row (by id) the feature that backend would
// refuse in this plan, whatever backend is chosen (its message; empty when none, for the
// simulator, or when the plan was not built), for the Backend list's entries.
std::optional<KnobProblem> checkRequest(const runtime::RunPlanRequest& request,
                                        const std::string& unavailable,
                                        std::vector<std::string>* refusals);
// The same, seen from the cuda entry (its tests and the latency bench): `cudaReason` is why a
// cuda request cannot run here, `cudaRefusal` receives cuda's refusal.
std::optional<KnobProblem> checkRequest(const runtime::RunPlanRequest& request,
                                        const std::string& cudaReason,
                                        std::string* cudaRefusal = nullptr);

}  // namespace ps::ui
