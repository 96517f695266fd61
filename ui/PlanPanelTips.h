#pragma once
// What each knob the plan panel draws itself means, as its tooltip says it (one place, so that
// the tests and any other button that does the same thing say the same). The knob table's knobs
// take their row's help (runtime/run/PlanKnobs.cpp).

namespace ps::ui::tips {

inline constexpr const char* kStages =
    "P: pipeline stages, one rank (thread, process or GPU) each.";
inline constexpr const char* kMicrobatches =
    "M: micro-batches each training step's batch is split into. More micro-batches shrink the "
    "pipeline bubble; some schedules need a minimum (e.g. zb-h1: M ≥ P).";
inline constexpr const char* kChunks =
    "V: virtual stages per rank. Interleaved and V-shaped schedules (interleaved-1f1b, zb-v, "
    "dualpipe-v, …) give each rank V chunks of layers; the other schedules use 1.";
inline constexpr const char* kLayers =
    "Layers of the model. \"P·V\" = one layer per virtual stage (P ranks × V chunks): every stage "
    "holds exactly one layer, so stage boundaries cannot move. Raise it above P·V to drag "
    "boundaries in the stage editor or to balance stages.";
inline constexpr const char* kSteps =
    "Training steps run back to back, each ending in an optimizer step: more than one shows how "
    "a step's tail overlaps the next step's head.";
inline constexpr const char* kModel =
    "The model the cpu and cuda backends train, one block per layer: transformer blocks, MLP "
    "blocks, spiking blocks (snn: leaky integrate-and-fire neurons in place of GELU), or "
    "mixture-of-experts blocks (moe: a router sends each token to 2 of 4 MLP experts; cpu), or "
    "graph blocks (gnn: each micro-batch a chunk of a graph, averaging over neighbours; cpu).";
inline constexpr const char* kHidden = "Hidden size H of the trained model (cpu, cuda).";
inline constexpr const char* kOptimizer =
    "Optimizer of the trained model (cpu, cuda); its learning rate is kept from the run shown.";
inline constexpr const char* kLinkGbps =
    "Bandwidth of every rank-to-rank link, in gigabits per second. \"free\" = transfers take no "
    "time. The cpu and cuda backends emulate it.";
inline constexpr const char* kLinkLatency =
    "Latency of every link: a fixed time each transfer takes on top of bytes / bandwidth (µs).";
inline constexpr const char* kOptimizerSync =
    "barrier: a step's optimizer update waits for every rank's backward (global gradient "
    "clipping). none: each rank updates once its own backward is done (zero-bubble "
    "post-validation).";
inline constexpr const char* kRerun =
    "Run again by itself shortly after a knob changes (one run after a burst of changes; a newer "
    "change supersedes a run still in progress).";
inline constexpr const char* kRun = "Run the plan the knobs show and add it to the open file.";
inline constexpr const char* kBalance =
    "Let the partitioner cut the layers into stages so that every stage takes about the same "
    "time, and run that plan.";
inline constexpr const char* kBalanceFixed =
    "Nothing to balance: Layers = P·V puts exactly one layer on every stage. Raise Layers to let "
    "the boundaries move.";
inline constexpr const char* kMore =
    "Link latency, activation size, per-layer times, optimizer sync, recomputation and the "
    "optimizer. The line beside it lists the ones not at their defaults.";

}  // namespace ps::ui::tips
