#pragma once
// What each knob of the plan panel means, as its tooltip says it (one place, so that the tests
// and any other button that does the same thing say the same).

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
    "The model the cpu and cuda backends train: transformer blocks or MLP blocks, one per layer.";
inline constexpr const char* kHidden = "Hidden size H of the trained model (cpu, cuda).";
inline constexpr const char* kOptimizer =
    "Optimizer of the trained model (cpu, cuda); its learning rate is kept from the run shown.";
inline constexpr const char* kLinkGbps =
    "Bandwidth of every rank-to-rank link, in gigabits per second. \"free\" = transfers take no "
    "time. The cpu and cuda backends emulate it.";
inline constexpr const char* kLinkLatency =
    "Latency of every link: a fixed time each transfer takes on top of bytes / bandwidth (µs).";
inline constexpr const char* kActMb =
    "Activation size: MB of activations one micro-batch produces per layer. It is what stages "
    "send each other and what each rank holds until the backward (memory). 0 = nothing is sent "
    "or held.";
inline constexpr const char* kFwdUs = "F: one layer's forward time for one micro-batch (µs, sim).";
inline constexpr const char* kBwdUs =
    "B: one layer's whole backward for one micro-batch, input gradient plus weight gradient "
    "(µs, sim).";
inline constexpr const char* kWgradUs =
    "W: the weight-gradient part of B (µs, at most B). Split-backward schedules (zb-*, dualpipe) "
    "run it apart from the input gradient.";
inline constexpr const char* kOptimizerSync =
    "barrier: a step's optimizer update waits for every rank's backward (global gradient "
    "clipping). none: each rank updates once its own backward is done (zero-bubble "
    "post-validation).";
inline constexpr const char* kRecompute =
    "Activation recomputation: keep only each stage's input after the forward and recompute the "
    "rest right before the backward (less memory, an extra R op).";
inline constexpr const char* kSplitBackward =
    "LayerPipe / 2BP: split each backward into the input gradient I, run where B was, and the "
    "weight gradient W, deferred into the rank's bubbles (schedules with whole backwards: gpipe, "
    "1f1b, interleaved).";
inline constexpr const char* kMaxDeferredW =
    "2BP's memory bound on the split: at most this many weight gradients W pending per rank "
    "(each keeps its micro-batch's activations until it runs); 0 = no bound.";
inline constexpr const char* kBalanceActivations =
    "BPipe: pairs rank r with rank P-1-r; the heavier of the two sends activations to the "
    "lighter after F (OFFLOAD) and takes them back before the backward (RELOAD), beside compute "
    "over their link, so that the pair's memory peaks meet in the middle.";
inline constexpr const char* kFrozen =
    "DiffusionPipe: a frozen (non-trainable) part's forward per micro-batch, e.g. a text "
    "encoder, as a FILL op feeding stage 0 (µs on a speed-1 device; none = 0). bubbles: the next "
    "step's frozen work in this step's idle gaps; before: each step's first, round-robin over "
    "the ranks (the baseline). Simulated, and run for real by the cpu backend (threads).";
inline constexpr const char* kStageGraph =
    "GraphPipe: the stages as a DAG instead of a chain, edges a>b with a < b, e.g. "
    "0>1,1>4,2>3,3>4 for two towers of two stages joined at the head (stage 4, which sums their "
    "outputs). Branches run side by side: a micro-batch crosses the DAG's depth, not its length. "
    "gpipe or 1f1b, one stage per rank; simulated and trained on the cpu backend (threads).";
inline constexpr const char* kAllToAll =
    "Piper (MoE token routing) or a graph-parallel GNN's halo exchange: every F and B ends in an "
    "all-to-all among the ranks holding the stage's replicas (needs Data parallel >= 2 and a link "
    "bandwidth), MiB per rank and micro-batch, each keeping its own share. overlap: on the "
    "rank's communication lane beside its compute; serial: the compute stream waits. Simulator "
    "only.";
inline constexpr const char* kEmbeddingFetch =
    "NestPipe: every F of stage 0 first gathers its micro-batch's embeddings (MiB) from the "
    "pipeline's other ranks, one shard each (needs a link bandwidth). overlap: an inner pipeline "
    "on the communication lane fetches ahead; serial: each fetch on the compute stream before "
    "its F. Simulator only.";
inline constexpr const char* kWeightVersions =
    "pipedream only. stash: each micro-batch in flight keeps the weights its forward used "
    "(PipeDream, up to p versions); latest: no stash, every pass on the live weights "
    "(TiMePReSt, pipelined backprop as in SpikePipe); predict: no stash, F on weights predicted "
    "from the optimizer's moments for its backward's update (XPipe, one copy at a time).";
inline constexpr const char* kTokenSlices =
    "TeraPipe (gpipe): each micro-batch is one long sequence (--seq-tokens) cut into token "
    "slices that follow each other through the stages: K equal slices, auto (TeraPipe's DP "
    "picks the lengths for the least Σ t + (p-1)·max t) or token counts like 1024,640,384. "
    "Later slices attend to more tokens and cost more. The cpu backend trains the slices (a "
    "causal prefix cache per layer) when the model's sequence is --seq-tokens; not cuda.";
inline constexpr const char* kSeqLengths =
    "DynaPipe: the global batch's sequence lengths in tokens (512,96,2048,... or @file), grouped "
    "into micro-batches of different sizes; the micro-batch count follows. dp: sorted and cut "
    "by DynaPipe's DP into padded groups; packed: concatenated into rows of --seq-tokens tokens "
    "in order (the baseline). The cpu backend trains each group at its own shape (padding "
    "masked) when the model's sequence is --seq-tokens; not cuda.";
inline constexpr const char* kForwardOnly =
    "Inference (PipeEdge): forwards only, no backward and no optimizer step; the Stats dock and "
    "report give throughput in micro-batches per second (simulator only).";
inline constexpr const char* kRankSpeed =
    "Heterogeneous devices (HetPipe): one speed factor per rank, e.g. 1,1,2,1 (2 = twice as "
    "fast); the partitioner gives faster ranks more layers. Empty: the costs' own.";
inline constexpr const char* kRankMemory =
    "One memory capacity per rank in GiB, e.g. 80,80,40,40; the partitioner fits each stage's "
    "peak in it and a plan over it is refused. Empty: the costs' own.";
inline constexpr const char* kDataParallel =
    "DAPPLE: replicate the pipeline D times (D x Stages ranks); each replica takes M/D of the "
    "micro-batches and the replicas all-reduce their gradients (AR) before the optimizer step.";
inline constexpr const char* kTopology =
    "Nodes x devices, e.g. 2x4 (must equal every rank): within a node transfers take the Link "
    "settings, between nodes the inter-node link, which all transfers between two nodes share. "
    "Empty: every pair of ranks has its own link.";
inline constexpr const char* kInterNode =
    "The link between two nodes under a topology: bandwidth in Gb/s (0 = as the Link setting) "
    "and latency in µs.";
inline constexpr const char* kMapping =
    "Which device runs each rank: empty or rank = rank r on device r; auto = the mapping with "
    "the shortest simulated step (Luo et al.); or a list, e.g. 0,4,1,5,2,6,3,7.";
inline constexpr const char* kPartition =
    "What the partitioner balances when it cuts the layers: time (the slowest stage) or memory "
    "(DawnPiper: the largest stage's memory, activations weighed by the micro-batches each stage "
    "holds), with the slowest stage at most the slack slower than the time-balanced cut's.";
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
