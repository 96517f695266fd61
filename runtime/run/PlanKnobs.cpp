#include "runtime/run/PlanKnobs.h"

#include <iterator>
#include <vector>

#include <array>

#include "runtime/cost/CostModel.h"
#include "runtime/run/PlanKnobFields.h"

namespace ps::runtime {
namespace {

constexpr std::array<std::string_view, 2> kPartitions{"time", "memory"};
constexpr std::array<std::string_view, 2> kSyncs{"barrier", "none"};
constexpr std::array<std::string_view, 2> kFills{"before", "bubbles"};
constexpr std::array<std::string_view, 5> kVersions{"stash", "latest", "predict", "ema", "blend"};
constexpr std::array<std::string_view, 2> kLanes{"overlap", "serial"};
constexpr std::array<std::string_view, 2> kGroupings{"dp", "packed"};

bool memoryPartition(const PlanSpec& s) {
  return s.partition == "memory";
}
bool sliced(const PlanSpec& s) {
  return !s.tokenSlices.empty();
}
bool grouped(const PlanSpec& s) {
  return !s.seqLengths.empty();
}
bool tokenShaped(const PlanSpec& s) {
  return sliced(s) || grouped(s);
}
bool withA2a(const PlanSpec& s) {
  return s.a2aMb > 0;
}
bool withFetch(const PlanSpec& s) {
  return s.fetchMb > 0;
}
bool withFrozen(const PlanSpec& s) {
  return s.frozenUs > 0;
}

constexpr double kMaxInt = 1 << 20;

using F = KnobFormat;

constexpr PlanKnob kKnobs[] = {
    // What ran and its shape.
    {.key = "schedule",
     .flag = "--schedule",
     .label = "schedule",
     .help = "Schedule generator (see `pipescope-cli schedules`)",
     .field = field<&PlanSpec::schedule>(),
     .format = F::Text,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "schedule_file",
     .flag = "--schedule-file",
     .label = "schedule file",
     .help = "torch pipelining CSV schedule (compute-only or with comms)",
     .field = field<&PlanSpec::scheduleFile>(),
     .format = F::File,
     .written = [](const PlanSpec& s) { return !s.scheduleFile.empty(); },
     .panel = {.bespoke = true}},
    {.key = "stages",
     .flag = "--stages",
     .label = "stages",
     .help = "Pipeline ranks P",
     .field = field<&PlanSpec::stages>(),
     .min = 1,
     .max = 4096,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "dp",
     .flag = "--dp",
     .label = "data parallel",
     .help = "DAPPLE: D data-parallel replicas of the pipeline (D x --stages ranks), "
             "M/D micro-batches each, gradients all-reduced before the optimizer step",
     .field = field<&PlanSpec::dataParallel>(),
     .min = 1,
     .max = 64,
     .written = [](const PlanSpec& s) { return s.dataParallel > 1; },
     .panel = {.movesCut = true}},
    {.key = "own_cuts",
     .flag = "--own-cuts",
     .label = "own cut per replica",
     .help = "HetPipe (with --dp): each replica's layers cut for its own ranks' speeds and "
             "memory (--rank-speed over all D x P ranks), not the first replica's cut; "
             "--boundaries gives the first replica's; the cpu backend sums each layer's "
             "gradients over the replicas",
     .field = field<&PlanSpec::ownCuts>(),
     .format = F::Flag,
     .written = [](const PlanSpec& s) { return s.ownCuts; },
     .panel = {.movesCut = true}},
    {.key = "microbatches",
     .flag = "--microbatches",
     .label = "micro-batches",
     .help = "Micro-batches M per step",
     .field = field<&PlanSpec::microbatches>(),
     .min = 1,
     .max = kMaxInt,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "chunks",
     .flag = "--chunks",
     .label = "chunks",
     .help = "Virtual stages per rank V",
     .field = field<&PlanSpec::chunks>(),
     .min = 1,
     .max = 64,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "layers",
     .flag = "--layers",
     .label = "layers",
     .help = "Model layers (default P·V)",
     .field = field<&PlanSpec::layers>(),
     .min = 1,
     .max = kMaxLayers,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "boundaries",
     .flag = "--boundaries",
     .label = "boundaries",
     .help = "First layer of stages 1..S-1, e.g. 3,6,9 (default: balanced by the "
             "partitioner)",
     .field = field<&PlanSpec::boundaries>(),
     .format = F::IntList,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "partition",
     .flag = "--partition",
     .label = "partition",
     .help = "What the partitioner balances without --boundaries: time (default) or "
             "memory (DawnPiper: the largest stage's memory, within --time-slack)",
     .field = field<&PlanSpec::partition>(),
     .format = F::Text,
     .choices = kPartitions,
     .written = memoryPartition,
     .panel = {.label = "Balance", .movesCut = true}},
    {.key = "time_slack",
     .flag = "--time-slack",
     .label = "time slack",
     .help = "--partition memory: how much slower than the time-balanced cut the "
             "slowest stage may be (0.1 = 10 %; default 0)",
     .field = field<&PlanSpec::timeSlack>(),
     .min = 0,
     .max = 10,
     .written = memoryPartition,
     .panel = {.prefix = "slack ", .bare = true, .movesCut = true}},
    {.key = "steps",
     .flag = "--steps",
     .label = "steps",
     .help = "Training steps",
     .field = field<&PlanSpec::steps>(),
     .min = 1,
     .max = 100000,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "optimizer_sync",
     .flag = "--optimizer-sync",
     .label = "optimizer sync",
     .help = "barrier: the optimizer step waits for every rank; none: only for its own",
     .format = F::Text,
     .choices = kSyncs,
     .fromPlan = true,
     .panel = {.bespoke = true}},
    {.key = "recompute",
     .flag = "--recompute",
     .label = "recompute",
     .help = "Activation recomputation: keep only stage inputs after F, recompute "
             "before backward",
     .field = field<&PlanSpec::recompute>(),
     .format = F::Flag,
     .fromPlan = true,
     .panel = {.label = "Recompute activations"}},
    // Mechanisms of the seed systems.
    {.key = "split_backward",
     .flag = "--split-backward",
     .label = "split backward",
     .help = "LayerPipe/2BP: split each B into I (now) and W (deferred into bubbles); "
             "for schedules with whole backwards (gpipe, 1f1b, ...)",
     .field = field<&PlanSpec::splitBackward>(),
     .format = F::Flag,
     .written = [](const PlanSpec& s) { return s.splitBackward; },
     .panel = {.label = "Split backward (I now, W in bubbles)"}},
    {.key = "max_deferred_w",
     .flag = "--max-deferred-w",
     .label = "max deferred W",
     .help = "--split-backward: at most K weight gradients W pending per rank (each "
             "keeps its activations); 0 = no bound",
     .field = field<&PlanSpec::maxDeferredW>(),
     .min = 0,
     .max = kMaxInt,
     .written = [](const PlanSpec& s) { return s.maxDeferredW > 0; },
     .panel = {.label = "Deferred W at most", .none = "no bound", .max = 4096}},
    {.key = "forward_only",
     .flag = "--forward-only",
     .label = "forward only",
     .help = "Inference (PipeEdge): forwards only, no backward or optimizer step; "
             "report gives throughput in micro-batches/s (sim backend)",
     .field = field<&PlanSpec::forwardOnly>(),
     .format = F::Flag,
     .written = [](const PlanSpec& s) { return s.forwardOnly; },
     .panel = {.label = "Forward only (inference)"}},
    {.key = "balance_activations",
     .flag = "--balance-activations",
     .label = "balance activations",
     .help = "BPipe: the heavier rank of each pair (r, P-1-r) offloads activations to "
             "the lighter after F and reloads them before the backward",
     .field = field<&PlanSpec::balanceActivations>(),
     .format = F::Flag,
     .written = [](const PlanSpec& s) { return s.balanceActivations; },
     .panel = {.label = "Balance activations (BPipe)"}},
    {.key = "stage_graph",
     .flag = "--stage-graph",
     .label = "stage graph",
     .help = "GraphPipe: the stages as a DAG, edges like 0>1,1>4,2>3,3>4 (two towers "
             "joined at the last stage); gpipe or 1f1b, one stage per rank",
     .field = field<&PlanSpec::stageGraph>(),
     .format = F::Text,
     .fromPlan = true,
     .panel = {.placeholder = "chain; or edges 0>1,1>4,2>3,3>4", .movesCut = true}},
    {.key = "weight_versions",
     .flag = "--weight-versions",
     .label = "weight versions",
     .help = "pipedream, nf1b: stash (each in-flight micro-batch keeps its forward's weights, the "
             "default), latest (V-TiMePReSt, pipelined backprop: no stash), predict (XPipe: F "
             "on weights predicted from the optimizer's moments), ema (LayerPipe2: backwards on "
             "weights rebuilt from a moving average of the updates) or blend (I-TiMePReSt: "
             "stash and live weights blended, the stash e^-d after d updates)",
     .field = field<&PlanSpec::weightVersions>(),
     .format = F::Text,
     .choices = kVersions,
     .written =
         [](const PlanSpec& s) {
           return !s.weightVersions.empty() && s.weightVersions != "stash";
         }},
    {.key = "token_slices",
     .flag = "--token-slices",
     .label = "token slices",
     .help = "TeraPipe (gpipe): cut each micro-batch, one sequence, into token slices: "
             "K equal ones, auto (the DP's lengths) or token counts like 1024,640,384",
     .field = field<&PlanSpec::tokenSlices>(),
     .format = F::Text,
     .written = sliced,
     .panel = {.placeholder = "none; K, auto or 1024,640,384", .movesCut = true}},
    {.key = "seq_lengths",
     .flag = "--seq-lengths",
     .label = "sequence lengths",
     .help = "DynaPipe: the global batch's sequence lengths in tokens, l1,l2,... or "
             "@FILE; grouped into micro-batches of different sizes (see "
             "--microbatching)",
     .field = field<&PlanSpec::seqLengths>(),
     .format = F::Text,
     .fromPlan = true,
     .panel = {.label = "Sequences",
               .placeholder = "none; 512,96,2048 or @file",
               .movesCut = true}},
    {.key = "microbatching",
     .flag = "--microbatching",
     .label = "micro-batching",
     .help = "--seq-lengths: dp (sorted, padded groups cut by DynaPipe's DP, the "
             "default) or packed (rows of --seq-tokens tokens, first fit in order)",
     .field = field<&PlanSpec::microbatching>(),
     .format = F::Text,
     .choices = kGroupings,
     .written = grouped,
     .emptyAs = "dp",
     .panel = {.movesCut = true}},
    {.key = "microbatch_tokens",
     .flag = "--microbatch-tokens",
     .label = "micro-batch tokens",
     .help = "--seq-lengths: a micro-batch's padded tokens, at most (default 8192)",
     .field = field<&PlanSpec::microbatchTokens>(),
     .min = 1,
     .max = 1 << 30,
     .written = grouped,
     .panel = {.label = "Batch tokens"}},
    {.key = "seq_tokens",
     .flag = "--seq-tokens",
     .label = "sequence tokens",
     .help = "--token-slices: the sequence's length in tokens; --seq-lengths: the "
             "reference sequence the cost flags time, and a packed row (default 2048)",
     .field = field<&PlanSpec::seqTokens>(),
     .min = 1,
     .max = 1 << 24,
     .written = tokenShaped},
    {.key = "attention_share",
     .flag = "--attention-share",
     .label = "attention share",
     .help = "--token-slices: causal attention's share of a layer's time over the "
             "whole sequence (default 0.5); a slice's attention grows with its prefix",
     .field = field<&PlanSpec::attentionShare>(),
     .min = 0,
     .max = 1,
     .written = tokenShaped},
    {.key = "a2a_mb",
     .flag = "--a2a-mb",
     .label = "expert all-to-all",
     .help = "Piper (MoE tokens), GNN halos: every F and B ends in an all-to-all among "
             "the stage's replicas (--dp >= 2), this many MiB per rank and "
             "micro-batch, a share kept",
     .field = field<&PlanSpec::a2aMb>(),
     .format = F::MiB,
     .min = 0,
     .max = 1e6,
     .written = withA2a,
     .panel = {.label = "All-to-all", .none = "none", .decimals = 1}},
    {.key = "a2a",
     .flag = "--a2a",
     .label = "all-to-all",
     .help = "--a2a-mb: overlap (on the communication lane beside compute, the "
             "default) or serial (the compute stream waits)",
     .field = field<&PlanSpec::a2a>(),
     .format = F::Text,
     .choices = kLanes,
     .written = [](const PlanSpec& s) { return s.a2aMb > 0 || s.graphNodes > 0; },
     .emptyAs = "overlap"},
    {.key = "fetch_mb",
     .flag = "--fetch-mb",
     .label = "embedding fetch",
     .help = "NestPipe: every F of stage 0 first gathers this many MiB of embeddings "
             "from the pipeline's other ranks",
     .field = field<&PlanSpec::fetchMb>(),
     .format = F::MiB,
     .min = 0,
     .max = 1e6,
     .written = withFetch,
     .panel = {.none = "none", .decimals = 1}},
    {.key = "fetch",
     .flag = "--fetch",
     .label = "fetch",
     .help = "--fetch-mb: overlap (an inner pipeline on the communication lane, the "
             "default) or serial (each fetch on the stream before its F)",
     .field = field<&PlanSpec::fetch>(),
     .format = F::Text,
     .choices = kLanes,
     .written = withFetch,
     .emptyAs = "overlap"},
    {.key = "fetch_ahead",
     .flag = "--fetch-ahead",
     .label = "fetch ahead",
     .help = "--fetch overlap: how many micro-batches the inner pipeline fetches ahead "
             "(default 2)",
     .field = field<&PlanSpec::fetchAhead>(),
     .min = 1,
     .max = 1024,
     .written = withFetch},
    {.key = "microbatch_overhead",
     .flag = "--microbatch-overhead",
     .label = "micro-batch overhead",
     .help = "--seq-lengths, --token-slices: a micro-batch's fixed cost as a fraction "
             "of one --seq-tokens sequence's (default 0)",
     .field = field<&PlanSpec::microbatchOverhead>(),
     .min = 0,
     .max = 100,
     .written = [](const PlanSpec& s) { return s.microbatchOverhead > 0; },
     .panel = {.label = "Batch overhead"}},
    {.key = "frozen_us",
     .flag = "--frozen-us",
     .label = "frozen forward µs",
     .help = "DiffusionPipe: the frozen (non-trainable) part's forward per "
             "micro-batch, in µs on a speed-1 device; each is a FILL op feeding stage 0",
     .field = field<&PlanSpec::frozenUs>(),
     .written = withFrozen,
     .panel = {.label = "Frozen forward", .none = "none", .unit = " µs"}},
    {.key = "fill",
     .flag = "--fill",
     .label = "frozen work",
     .help = "With --frozen-us: bubbles (the next step's frozen work in this step's "
             "idle gaps, the default) or before (each step's first, round-robin over "
             "ranks)",
     .field = field<&PlanSpec::fill>(),
     .format = F::Text,
     .choices = kFills,
     .written = withFrozen,
     .emptyAs = "bubbles"},
};

}  // namespace

std::span<const PlanKnob> planKnobs() {
  // Own rows, cost rows (PlanCostKnobs.cpp), mechanisms (PlanMechanismKnobs.cpp): config order.
  static const std::vector<PlanKnob> rows = [] {
    std::vector<PlanKnob> all(std::begin(kKnobs), std::end(kKnobs));
    for (const auto more : {costPlanKnobs(), mechanismPlanKnobs()})
      all.insert(all.end(), more.begin(), more.end());
    return all;
  }();
  return rows;
}

const PlanKnob* findPlanKnob(std::string_view key) {
  for (const PlanKnob& knob : planKnobs())
    if (knob.key == key) return &knob;
  return nullptr;
}

}  // namespace ps::runtime
