#pragma once
// Everything a user sets to get a runnable plan (DESIGN §5's PLAN flags), turned into a validated
// plan, its cost model and the config_json that reruns it. Shared by pipescope-cli and the app.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct PlanSpec {
  std::string schedule = "1f1b";  // a generator name (ignored when scheduleFile is set)
  std::string scheduleFile;       // a torch pipelining CSV
  std::optional<int> stages;      // P (ranks); from the CSV when a file is given
  std::optional<int> microbatches;
  int chunks = 1;             // V
  std::optional<int> layers;  // default P·V, or the cost file's layer count
  std::string boundaries;     // "i,j,k": first layer of stages 1..S-1; empty = balance
  // What the partitioner balances when boundaries is empty: "time" (the default, also empty) or
  // "memory" (DawnPiper: the largest stage's memory, the slowest stage within timeSlack of the
  // time-balanced cut's).
  std::string partition;
  double timeSlack = 0;
  std::string costsFile;  // per-layer cost JSON; else the uniform flags
  // A cost model to use instead of reading costsFile (which is still recorded in config_json):
  // a rerun's copy of the costs its run embedded, so that it does not need the file any more.
  std::shared_ptr<const CostModel> costs;
  UniformCostFlags uniform;  // --fwd-us, --bwd-us, --wgrad-us, --act-mb, links
  int steps = 1;
  OptimizerSync optimizerSync = OptimizerSync::Barrier;
  bool recompute = false;  // activation recomputation: R before each backward
  // LayerPipe / 2BP: each B split into I (now) and W (deferred into the rank's bubbles).
  bool splitBackward = false;
  int maxDeferredW = 0;  // 2BP: at most this many W pending per rank (0 = unbounded)
  // BPipe: activations move from the heavier rank of each pair (r, P−1−r) to the lighter after
  // F and come back before the backward (OFFLOAD / RELOAD over the link).
  bool balanceActivations = false;
  // DiffusionPipe: the frozen part's forward per micro-batch (µs on a speed-1 device; 0 = none)
  // and where it runs: "bubbles" (the default: the next step's in this step's idle gaps) or
  // "before" (each step's before its pipeline, shared round-robin over the ranks).
  double frozenUs = 0;
  std::string fill;
  // TeraPipe: each of the M micro-batches is one sequence of seqTokens tokens, cut into slices
  // ("K" equal ones, "auto" for the DP's, or "l1,l2,..." tokens) that run as micro-batches of
  // their own (gpipe); attentionShare is the causal attention's part of a layer's time.
  std::string tokenSlices;
  int seqTokens = 2048;
  double attentionShare = 0.5;
  // DynaPipe: the global batch's sequence lengths ("l1,l2,..." or "@FILE"; each at most
  // seqTokens) grouped into micro-batches of different sizes, "dp" (the default: sorted, padded
  // groups cut by a DP) or "packed" (rows of seqTokens tokens, first fit in the order given),
  // each within microbatchTokens padded tokens. The micro-batch count follows from the grouping.
  std::string seqLengths;
  std::string microbatching;
  int microbatchTokens = 8192;
  // A micro-batch's (or token slice's) fixed cost, as a fraction of one seqTokens sequence's.
  double microbatchOverhead = 0;
  // PipeDream's weight versions: "stash" (the default: each in-flight micro-batch keeps the
  // version its forward used), "latest" (TiMePReSt, pipelined backprop: no stash, every pass on
  // the live weights) or "predict" (XPipe: F on weights predicted from the optimizer's moments
  // for its backward's update, no stash).
  std::string weightVersions;
  // Piper: every F and B ends in an expert all-to-all among the stage's replicas (--dp >= 2),
  // a2aMb MiB sent per rank and micro-batch; a2a "overlap" (the default: on the rank's
  // communication lane beside its compute) or "serial" (the compute stream waits for it).
  double a2aMb = 0;
  std::string a2a;
  // NestPipe: every F of stage 0 first gathers its micro-batch's embeddings, fetchMb MiB, from
  // the pipeline's other ranks; fetch "overlap" (the default: an inner pipeline up to
  // fetchAhead micro-batches ahead on the communication lane) or "serial" (on the stream).
  double fetchMb = 0;
  std::string fetch;
  int fetchAhead = 2;
  // NestPipe's inter-batch stages before the gather: "prefetch,h2d,routing,lookup" µs per
  // micro-batch, each on its own lane (EmbeddingFetch::stageNs); empty = the gather alone.
  std::string fetchStagesUs;
  // GraphPipe: the stages as a DAG, edges "a>b" (e.g. "0>1,1>4,2>3,3>4": two towers of two
  // stages joined at stage 4); empty = a chain. gpipe or 1f1b, one stage per rank.
  std::string stageGraph;
  // Inference (PipeEdge): F only, no backward or optimizer step; weights are the only state.
  bool forwardOnly = false;
  // Heterogeneous devices (HetPipe, PipeEdge), one value per rank over the cost model's: the
  // speed factor (2 = twice as fast) and the memory capacity in GiB. Empty = the model's own.
  std::vector<double> rankSpeed;
  std::vector<double> rankMemoryGb;
  // DAPPLE: the pipeline replicated over this many data-parallel groups of P ranks each (D·P
  // ranks in all); the M micro-batches are shared out, M / D to each, and the replicas'
  // gradients are all-reduced (AR) before the optimizer step.
  int dataParallel = 1;
  // HetPipe's virtual workers: each replica's layers cut for its own ranks (speeds, memory)
  // rather than every replica taking the first replica's cut.
  bool ownCuts = false;
  // Chimera / BitPipe (replicated plans): exchange each stage's gradients with its twins as soon
  // as both are done with its backward, beside compute, not all at once before the optimizer.
  bool eagerSync = false;
  // HetPipe's wave-synchronous parallel (with --dp): each replica steps on its own updates and
  // adds the others' D steps late (Plan::waveStaleness); 0 = the all-reduce every step.
  int staleness = 0;
  // DawnPiper: cut between operators rather than layers, each layer as this many operators of
  // equal share (--boundaries then counts operators; sim backend).
  int operators = 1;
  // GNNPipe: the nodes of the cpu backend's power-law graph (GraphHalo), the micro-batches its
  // chunks; with --dp the replicas' all-to-all is the halo exchange read off it (0 = no graph).
  int graphNodes = 0;
  // GNNPipe's staleness bound: a full-graph refresh of the historical embeddings before every
  // K-th step (Plan::historyRefresh; cpu backend, --model gnn); 0 = never.
  int historyRefresh = 0;
  // NestPipe's key-centric sample clustering (Plan::clusterKeys; with --fetch-mb).
  bool clusterKeys = false;
  // Luo et al.: "NxG", N nodes of G devices (N·G = every rank); inter-node transfers take
  // interGbps / interLatencyUs and share one link per pair of nodes; within a node the link flags.
  std::string topology;
  std::optional<double> interGbps;
  double interLatencyUs = 0;
  // "node" (the default: one inter-node link per pair of nodes, shared by their devices) or
  // "device" (a link per pair of devices across nodes: a network card per device).
  std::string interLinks;
  // Which device runs which pipeline rank: empty = rank order; "auto" = searched (the mapping
  // with the shortest simulated step); or a device list, e.g. "0,4,1,5,2,6,3,7" (rank r on the
  // r-th device named).
  std::string mapping;
};

// How --seq-lengths and --token-slices cut one replica's step into micro-batches, for backends
// that train them (TokenLayouts are made from it with the model's shape).
struct SequencePlan {
  std::vector<int> lengths;                         // DynaPipe: the sequences' lengths
  std::vector<std::vector<std::vector<int>>> rows;  // DynaPipe: per micro-batch, rows of sequences
  std::vector<int> sliceLengths;                    // TeraPipe: every sequence's slices
  bool packed = false;                              // DynaPipe: --microbatching packed
  int tokens = 0;                                   // --seq-tokens: a sequence (a packed row)
  bool empty() const { return rows.empty() && sliceLengths.empty(); }
};

struct BuiltPlan {
  Plan plan;
  SequencePlan sequences;
  CostModel cost;
  OpGraph graph;
  std::string configJson;          // every knob needed to rerun (the cost model is embedded)
  std::vector<std::string> notes;  // things the user should know (e.g. legacy CSV encoding)
  std::vector<int> deviceOrder;    // the mapping used: rank r's ops run on deviceOrder[r]
};

// Generates (or reads), places layers, repeats steps, validates. Errors name the flag/file.
// `cancel` stops the long parts (--mapping auto's search and its simulations) with an error;
// the caller tells a cancel from a refusal by the flag.
Result<BuiltPlan> buildPlan(const PlanSpec& spec, const std::atomic<bool>* cancel = nullptr);

// A short name for a run, e.g. "1f1b p=4 m=8".
std::string planRunName(const Plan& plan);

// Per-rank peak memory against capacity: an error naming the first rank over its cap and by how
// much (DESIGN: a memory cap the plan exceeds is bad input).
Status checkMemoryCaps(const CostModel& cost, const std::vector<std::int64_t>& peakPerRank);

// Turns on activation recomputation: inserts R(s,m) right before the first backward op (B or I)
// of every (stage, micro-batch, step) in its rank's program.
void addRecompute(Plan& plan);

std::string optimizerSyncName(OptimizerSync sync);
std::optional<OptimizerSync> parseOptimizerSync(const std::string& name);

}  // namespace ps::runtime
