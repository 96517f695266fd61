#pragma once
// The plan IR of DESIGN §2: for one or more training steps, what every rank computes, in what
// order, and where each virtual stage lives. Communication is derived from placement (see
// Lowering.h); dependencies are derived from the stage graph and the kind rules (Dependencies.h).
//
// Designed to take later families without rewrites:
//  - heterogeneous devices: per-rank speed and memory live in the cost model, not here;
//  - replicated stages (Chimera): `placement[replica][stage]`, micro-batches pick a replica;
//  - stage DAGs (GraphPipe): `stagePreds`, a chain by default;
//  - token slices (TeraPipe): micro-batches with `sliceOf` chaining F(s,k) after F(s,k-1);
//  - bubble filling (DiffusionPipe): FILL actions with no dependencies;
//  - asynchronous weights (PipeDream, 2BW): `versioning` and multi-step programs.

#include <cstdint>
#include <string>
#include <vector>

#include "trace/OpKind.h"

namespace ps::runtime {

using trace::OpKind;

// One entry of a rank's program. Compute kinds only in `Plan::programs`; communication kinds
// appear in lowered programs and in torch CSVs that list them.
struct Action {
  OpKind kind = OpKind::F;
  int stage = -1;       // virtual stage; -1 for OPT
  int microbatch = -1;  // index into Plan::microbatches; -1 for OPT
  int step = 0;
  int peer = -1;  // communication actions: the other rank
  // DualPipeV-style overlap: this action and the next one form one unit that starts when both
  // are ready (torch CSV cell "(0F7;7B3)OVERLAP_F_B").
  bool overlapNext = false;
  // FILL with a stage and micro-batch (DiffusionPipe): the frozen forward whose output F(stage,
  // micro-batch) of step `step + ahead` takes; 1 = work for the next step done in this one's
  // bubbles.
  std::int8_t ahead = 0;

  friend bool operator==(const Action&, const Action&) = default;
};

struct StagePlacement {
  int rank = 0;
  int firstLayer = 0;
  int lastLayer = 0;  // inclusive
};

struct MicrobatchSpec {
  double costScale = 1.0;  // variable-length micro-batches and token slices scale their costs
  int replica = 0;         // bidirectional plans: which pipeline direction it takes
  int sliceOf = -1;        // token slices: the previous slice of the same sequence, or -1
};

enum class WeightVersioning {
  Synchronous,     // one weight version; OPT after every W/B of the step
  Stashed,         // PipeDream: each in-flight micro-batch keeps the version its forward used
  DoubleBuffered,  // PipeDream-2BW: two versions, updated every M micro-batches
  // No stash (TiMePReSt, pipelined backprop / SpikePipe): every pass runs on the live weights,
  // so a backward may use newer weights than its forward did.
  Latest,
  // XPipe: no stash; F runs on weights predicted, from the optimizer's moments, for the update
  // its backward will see (one transient copy per stage), the backward on the live weights.
  Predicted,
  // LayerPipe2: no stash; F runs on the live weights and each backward on the weights its
  // forward saw, reconstructed from the live ones and a moving average of the stage's updates
  // (W − k·ē after k updates): one averaged copy per stage instead of a version per micro-batch.
  Reconstructed,
  // I-TiMePReSt: PipeDream's stash, but each backward on an intermediate of its forward's
  // stashed weights and the live ones, the stash weighted e^(−d) after d updates
  // (StageModel::blendStashWithLive): stale weights count for less the staler they are.
  Blended,
};

enum class OptimizerSync {
  Barrier,  // OPT of a step waits for every rank's W/B of that step (global gradient clipping)
  None,     // OPT waits only for its own rank's W/B (the zero-bubble paper's post-validation)
};

// An extra dependency edge a plan may add: `before` must finish before `after` starts.
struct ActionRef {
  OpKind kind = OpKind::F;
  int stage = -1;
  int microbatch = -1;
  int step = 0;
  friend bool operator==(const ActionRef&, const ActionRef&) = default;
};
struct ExtraEdge {
  ActionRef before, after;
};

// BPipe's activation balancing: after F(stage, micro-batch) its activations leave their rank for
// `holder`'s memory (an OFFLOAD over the link) and come back (a RELOAD) while the op before the
// stage's first backward op of that micro-batch runs; the backward waits for them. The same in
// every step. The rank's compute stream never waits for an OFFLOAD: copies run beside it.
struct ActivationMove {
  int stage = -1;
  int microbatch = -1;
  int holder = -1;  // the rank that keeps them meanwhile
  friend bool operator==(const ActivationMove&, const ActivationMove&) = default;
};

// Piper: expert parallelism over the pipeline's replicas (--dp). After every F and B of a stage
// its tokens go through an all-to-all among the ranks holding that stage's replicas, each
// sending `bytes` per micro-batch, shared out evenly over the others. Overlapped: on the rank's
// communication lane while its compute stream goes on with other work, and only the op's
// consumers wait; serial: the compute stream waits for it too.
struct ExpertAllToAll {
  std::int64_t bytes = 0;  // 0 = none
  bool overlap = true;
  friend bool operator==(const ExpertAllToAll&, const ExpertAllToAll&) = default;
};

// NestPipe: every F of stage 0 needs its micro-batch's embeddings, `bytes` gathered from the
// other ranks of its pipeline (their shards of the embedding tables), one share each. Overlapped:
// an inner pipeline on the communication lane fetches up to `ahead` micro-batches ahead of the
// model pipeline into `ahead` + 1 buffers (the end of the j-th F of stage 0 frees its buffer for
// the (j + 1 + ahead)-th fetch; ahead 1: dual buffers); serial: each fetch runs on the compute
// stream right before its F. With `stageNs`, the gather is the last of the paper's inter-batch
// stages: prefetch from the host's store, host-to-device copy, key routing and lookup run first,
// each on its own lane of the rank (one micro-batch at a time), so that overlapped fetches of
// successive micro-batches pipeline.
struct EmbeddingFetch {
  std::int64_t bytes = 0;  // 0 = none
  bool overlap = true;
  int ahead = 2;
  std::vector<std::int64_t> stageNs;  // per micro-batch: prefetch, H2D, routing, lookup; or none
  friend bool operator==(const EmbeddingFetch&, const EmbeddingFetch&) = default;
};

struct Plan {
  std::string schedule;  // canonical generator name, or "custom" for imported CSVs
  int numRanks = 0;
  int numStages = 0;           // S = P·V virtual stages (per replica)
  int chunks = 1;              // V
  int numLayers = 0;           // what stages are cut from: layers, or operators (below)
  int operatorsPerLayer = 1;   // DawnPiper's --operators: numLayers counts operators
  int steps = 1;               // how many steps the programs cover
  bool splitBackward = false;  // I + W instead of B
  bool recompute = false;      // R before each backward; only stage inputs kept after F
  bool forwardOnly = false;    // inference (PipeEdge): F only, no backward or optimizer step
  WeightVersioning versioning = WeightVersioning::Synchronous;
  OptimizerSync optimizerSync = OptimizerSync::Barrier;
  // Replicated plans (Chimera, BitPipe): each stage's gradients are exchanged with its twins as
  // soon as every holder has finished its backward, beside compute, instead of all at once
  // before the optimizer step (the papers' eager gradient synchronisation).
  bool eagerGradientSync = false;
  // HetPipe's wave-synchronous parallel (--staleness D with --dp): each replica (a virtual
  // worker) updates its weights from its own gradients at its step's end and exchanges the
  // update with the other replicas beside compute; its optimizer step k adds the others' updates
  // of step k − D, so it starts step k + 1 from every replica's updates up to step k − D and its
  // own since. −1: off (the replicas all-reduce their gradients before every optimizer step).
  int waveStaleness = -1;
  // GNNPipe's staleness bound (--history-refresh K, a gnn model on the cpu backend): before every
  // K-th step a forward-only pass over the whole graph, stage after stage, makes every layer's
  // historical embeddings current, so that step's forwards read no neighbour older than its
  // weights (K = 1: staleness 0, the full graph's forward); 0: never (a neighbour in a later
  // chunk is read from the last step's forward).
  int historyRefresh = 0;
  // NestPipe's key-centric sample clustering (--cluster-keys, the cpu backend's embedding table):
  // each step's samples regrouped into its micro-batches by shared keys, so that each gather
  // moves fewer distinct rows (ModelConfig::clusterKeys).
  bool clusterKeys = false;
  // GNNPipe (--graph-nodes): the nodes of the graph the halo bytes were read off; 0 = none.
  int graphNodes = 0;

  std::vector<std::vector<StagePlacement>> placement;  // [replica][stage]
  std::vector<std::vector<int>> stagePreds;            // [stage]; empty = chain
  std::vector<MicrobatchSpec> microbatches;            // M entries, the same every step
  std::vector<std::vector<Action>> programs;           // [rank]
  std::vector<ExtraEdge> extraEdges;
  std::vector<ActivationMove> activationMoves;  // BPipe; empty = every activation stays put
  ExpertAllToAll expertAllToAll;                // Piper
  EmbeddingFetch embeddingFetch;                // NestPipe

  int numReplicas() const { return static_cast<int>(placement.size()); }
  int numMicrobatches() const { return static_cast<int>(microbatches.size()); }
  int replicaOf(int microbatch) const { return microbatches[microbatch].replica; }
  int rankOf(int stage, int microbatch) const {
    return placement[replicaOf(microbatch)][stage].rank;
  }
  // Predecessors of a stage: stagePreds when given, else the chain (stage - 1).
  std::vector<int> predecessors(int stage) const;
  std::vector<int> successors(int stage) const;
  bool isLastStage(int stage) const { return successors(stage).empty(); }
  std::size_t actionCount() const;
};

// Per stage, the most micro-batches whose activations it holds at once: walking each rank's
// program in order, F(s, m) takes them and the last backward op of (s, m) (B, or W when the
// backward is split) gives them back; the largest count over the ranks holding s. What the
// partitioner weighs activations by (1F1B: p − s on stage s; GPipe: M).
std::vector<int> peakActivationsInFlight(const Plan& plan);

// "2F0", "1I3", "OPT" ... (torch's cell spelling; OPT carries no stage/micro-batch).
std::string actionLabel(const Action& a);
std::string actionLabel(const ActionRef& a);

}  // namespace ps::runtime
