#include "runtime/run/PlanVariants.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "runtime/run/PlanSize.h"
#include "runtime/schedules/StageGraph.h"
#include "runtime/schedules/TokenSlices.h"
#include "runtime/schedules/VariableMicrobatches.h"
#include "runtime/sim/OpCosts.h"
#include "runtime/sim/Simulator.h"
#include "trace/Units.h"

namespace ps::runtime {
namespace {

TokenSlicing tokenSlicingOf(const PlanSpec& spec) {
  return {spec.seqTokens, spec.attentionShare, spec.microbatchOverhead};
}

// --fetch-stages-us "p,h,r,l": NestPipe's four stages before the gather, in ns; empty = none.
Result<std::vector<std::int64_t>> fetchStageTimes(const std::string& text) {
  std::vector<std::int64_t> ns;
  if (text.empty()) return ns;
  const std::string flag = "--fetch-stages-us " + text + ": ";
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const double us = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(us >= 0 && us <= 1e9))
      return Error{flag + "'" + item + "' is not a time in 0..1e9 µs"};
    ns.push_back(static_cast<std::int64_t>(std::llround(us * 1e3)));
    at = comma + 1;
  }
  if (ns.size() != static_cast<std::size_t>(kFetchStages))
    return Error{flag + "expected 4 times (prefetch, host-to-device, key routing, lookup), got " +
                 std::to_string(ns.size())};
  return ns;
}

}  // namespace

// --seq-lengths (DynaPipe): the micro-batches of the chosen grouping, each scaled to its cost.
Result<Plan> variableMicrobatchPlan(const PlanSpec& spec, ScheduleParams params,
                                    SequencePlan& sequences) {
  const std::string flag = "--seq-lengths: ";
  if (spec.microbatches)
    return Error{flag +
                 "the micro-batches follow from grouping the sequences (drop "
                 "--microbatches " +
                 std::to_string(*spec.microbatches) + ")"};
  if (!spec.tokenSlices.empty()) return Error{flag + "not with --token-slices (pick one)"};
  if (spec.dataParallel != 1) return Error{flag + "not with --dp yet"};
  if (!(spec.seqTokens >= 1 && spec.seqTokens <= (1 << 24)))
    return Error{"--seq-tokens " + std::to_string(spec.seqTokens) + ": expected 1..16777216"};
  auto lengths = parseSequenceLengths(spec.seqLengths, spec.seqTokens);
  if (!lengths) return std::move(lengths).takeError();
  const SequenceBatching batching{spec.seqTokens, spec.attentionShare, spec.microbatchTokens,
                                  spec.microbatchOverhead};
  auto groups = [&]() -> Result<Microbatching> {
    if (spec.microbatching.empty() || spec.microbatching == "dp")
      return dpMicrobatches(*lengths, batching, params.ranks);
    if (spec.microbatching == "packed") return packedMicrobatches(*lengths, batching);
    return Error{"--microbatching " + spec.microbatching + ": expected dp or packed"};
  }();
  if (!groups) return std::move(groups).takeError();
  params.microbatches = static_cast<int>(groups->scales.size());
  PS_TRY(checkVariantPlanSize(spec, params.microbatches,
                              "--seq-lengths: " + std::to_string(lengths->size()) +
                                  " sequences in " + std::to_string(params.microbatches) +
                                  " micro-batches: "));
  auto plan = generateSchedule(spec.schedule, params);
  if (!plan) return plan;
  PS_TRY(applyMicrobatchScales(*plan, groups->scales));
  sequences.lengths = std::move(*lengths);
  sequences.rows = std::move(groups->rows);
  sequences.packed = spec.microbatching == "packed";
  sequences.tokens = spec.seqTokens;
  return plan;
}

// --token-slices (TeraPipe): gpipe over sequences × slices, the slices chained.
Result<Plan> slicedPlan(const PlanSpec& spec, ScheduleParams params, SequencePlan& sequences) {
  const std::string flag = "--token-slices " + spec.tokenSlices + ": ";
  if (spec.schedule != "gpipe")
    return Error{flag +
                 "slices run through gpipe (all forwards, then the backwards from the last "
                 "slice back); " +
                 spec.schedule +
                 " would run a slice's backward before "
                 "a later slice's"};
  if (spec.splitBackward) return Error{flag + "not with --split-backward"};
  auto lengths =
      parseTokenSlices(spec.tokenSlices, tokenSlicingOf(spec), params.ranks, params.microbatches);
  if (!lengths) return std::move(lengths).takeError();
  const auto K = static_cast<int>(lengths->size());
  if (static_cast<long long>(params.microbatches) * K > (1 << 20))
    return Error{flag + std::to_string(params.microbatches) + " sequences × " + std::to_string(K) +
                 " slices is too many micro-batches"};
  PS_TRY(checkVariantPlanSize(spec, params.microbatches * K,
                              "--token-slices: " + std::to_string(params.microbatches) +
                                  " sequences × " + std::to_string(K) + " slices: "));
  params.microbatches *= K;
  auto plan = generateSchedule(spec.schedule, params);
  if (!plan) return plan;
  PS_TRY(sliceTokens(*plan, *lengths, tokenSlicingOf(spec)));
  sequences.sliceLengths = std::move(*lengths);
  sequences.tokens = spec.seqTokens;
  return plan;
}

Result<Plan> stageGraphPlan(const PlanSpec& spec, const ScheduleParams& params) {
  if (spec.dataParallel != 1) return Error{"--stage-graph: not with --dp yet"};
  auto plan = generateSchedule(spec.schedule, params);
  if (!plan) return plan;
  auto preds = parseStageGraph(spec.stageGraph, plan->numStages);
  if (!preds) return std::move(preds).takeError();
  PS_TRY(applyStageGraph(*plan, std::move(*preds)));
  return plan;
}

Status keepForwardsOnly(const PlanSpec& spec, Plan& plan) {
  const std::string flag = "--forward-only: ";
  if (spec.splitBackward) return Error{flag + "has no backward to split (drop --split-backward)"};
  if (spec.recompute) return Error{flag + "has no backward to recompute for (drop --recompute)"};
  if (plan.versioning != WeightVersioning::Synchronous)
    return Error{flag + plan.schedule + " is asynchronous: its weight versions follow backwards"};
  for (auto& program : plan.programs)
    std::erase_if(program, [](const Action& a) { return a.kind != OpKind::F; });
  for (auto& program : plan.programs)
    for (Action& a : program)
      a.overlapNext = false;  // an overlapped F+B pair loses its B
  plan.forwardOnly = true;
  plan.splitBackward = false;
  plan.extraEdges.clear();  // between ops of which only forwards are left: none apply
  return {};
}

// --weight-versions: PipeDream's stash, or none (latest), or XPipe's prediction.
Status applyWeightVersions(const PlanSpec& spec, Plan& plan) {
  if (spec.weightVersions.empty() || spec.weightVersions == "stash") return {};
  const std::string flag = "--weight-versions " + spec.weightVersions + ": ";
  if (plan.versioning != WeightVersioning::Stashed)
    return Error{flag + "replaces PipeDream's weight stash (--schedule pipedream or nf1b), not " +
                 plan.schedule + "'s versions"};
  if (spec.weightVersions == "latest")
    plan.versioning = WeightVersioning::Latest;
  else if (spec.weightVersions == "predict")
    plan.versioning = WeightVersioning::Predicted;
  else if (spec.weightVersions == "ema")
    plan.versioning = WeightVersioning::Reconstructed;
  else if (spec.weightVersions == "blend")
    plan.versioning = WeightVersioning::Blended;
  else
    return Error{flag + "expected stash, latest, predict, ema or blend"};
  return {};
}

// --a2a-mb (Piper) and --fetch-mb (NestPipe): collectives on the ranks' communication lanes.
Status addCommLaneWork(const PlanSpec& spec, Plan& plan, const CostModel& cost) {
  const auto mode = [](const std::string& flag, const std::string& value) -> Result<bool> {
    if (value.empty() || value == "overlap") return true;
    if (value == "serial") return false;
    return Error{flag + " " + value + ": expected overlap or serial"};
  };
  const auto bytes = [](double mb) { return static_cast<std::int64_t>(mb * 1024 * 1024); };
  if (!(spec.a2aMb >= 0 && spec.a2aMb <= 1e6))
    return Error{"--a2a-mb " + formatNumber(spec.a2aMb) + ": expected 0..1e6 MiB"};
  if (!(spec.fetchMb >= 0 && spec.fetchMb <= 1e6))
    return Error{"--fetch-mb " + formatNumber(spec.fetchMb) + ": expected 0..1e6 MiB"};
  if (!spec.a2a.empty() && spec.a2aMb == 0 && spec.graphNodes == 0)
    return Error{"--a2a " + spec.a2a +
                 ": places the expert all-to-all (give --a2a-mb, or --graph-nodes with --dp)"};
  if (!spec.fetch.empty() && spec.fetchMb == 0)
    return Error{"--fetch " + spec.fetch + ": places the embedding fetch (give --fetch-mb too)"};
  if (spec.a2aMb > 0) {
    auto overlap = mode("--a2a", spec.a2a);
    if (!overlap) return std::move(overlap).takeError();
    if (plan.numReplicas() < 2 || spec.dataParallel < 2)
      return Error{
          "--a2a-mb: the all-to-all runs among a stage's replicas (experts or graph parts); give "
          "--dp 2 or more"};
    plan.expertAllToAll = {bytes(spec.a2aMb), *overlap};
  }
  if (spec.fetchMb > 0) {
    auto overlap = mode("--fetch", spec.fetch);
    if (!overlap) return std::move(overlap).takeError();
    if (spec.fetchAhead < 1 || spec.fetchAhead > 1024)
      return Error{"--fetch-ahead " + std::to_string(spec.fetchAhead) +
                   ": expected 1..1024 micro-batches"};
    if (plan.numRanks < 2) return Error{"--fetch-mb: the embedding shards need 2 or more ranks"};
    plan.embeddingFetch = {bytes(spec.fetchMb), *overlap, spec.fetchAhead, {}};
    auto stages = fetchStageTimes(spec.fetchStagesUs);
    if (!stages) return std::move(stages).takeError();
    plan.embeddingFetch.stageNs = std::move(*stages);
  } else if (!spec.fetchStagesUs.empty()) {
    return Error{"--fetch-stages-us " + spec.fetchStagesUs +
                 ": times the embedding fetch's stages (give --fetch-mb too)"};
  }
  if ((spec.a2aMb > 0 || spec.fetchMb > 0) && sim::allLinksFree(cost))
    return Error{std::string(spec.a2aMb > 0 ? "--a2a-mb" : "--fetch-mb") +
                 ": the links are free (no bandwidth): give --link-gbps to time the copies"};
  return {};
}

Status checkFrozenFlags(const PlanSpec& spec) {
  if (!(spec.frozenUs >= 0 && spec.frozenUs <= 1e9))
    return Error{"--frozen-us " + formatNumber(spec.frozenUs) +
                 ": expected 0..1e9 µs (the frozen part's forward per micro-batch)"};
  if (!spec.fill.empty() && spec.fill != "before" && spec.fill != "bubbles")
    return Error{"--fill " + spec.fill + ": expected before or bubbles"};
  if (!spec.fill.empty() && spec.frozenUs == 0)
    return Error{"--fill " + spec.fill + ": places the frozen part's work (give --frozen-us too)"};
  return {};
}

}  // namespace ps::runtime
