#include "runtime/run/PlanConfigJson.h"

#include "runtime/cost/CostJson.h"
#include "runtime/run/DeviceMapping.h"
#include "runtime/schedules/StageGraph.h"
#include "runtime/schedules/VariableMicrobatches.h"
#include "trace/JsonWriter.h"

namespace ps::runtime {
namespace {

// A sliced plan's slices per sequence: the length of the first slice chain.
int slicesPerSequence(const Plan& plan) {
  int k = 1;
  while (k < plan.numMicrobatches() &&
         plan.microbatches[static_cast<std::size_t>(k)].sliceOf == k - 1)
    ++k;
  return k;
}

}  // namespace

std::string planConfigJson(const PlanSpec& spec, const Plan& plan, const CostModel& cost,
                           const std::vector<int>& deviceOf) {
  std::string resolvedLengths;
  if (!spec.seqLengths.empty()) {
    auto lengths = parseSequenceLengths(spec.seqLengths, spec.seqTokens);
    for (int l : lengths ? *lengths : std::vector<int>{})
      resolvedLengths += (resolvedLengths.empty() ? "" : ",") + std::to_string(l);
  }
  trace::JsonWriter w;
  w.beginObject();
  w.key("schedule").value(plan.schedule);
  if (!spec.scheduleFile.empty()) w.key("schedule_file").value(spec.scheduleFile);
  // --stages is one replica's ranks: --dp multiplies them.
  w.key("stages").value(plan.numRanks / std::max(1, spec.dataParallel));
  if (spec.dataParallel > 1) w.key("dp").value(spec.dataParallel);
  // Sliced sequences (TeraPipe) are the micro-batches the user counts.
  const int slices = spec.tokenSlices.empty() ? 1 : slicesPerSequence(plan);
  // Grouped sequences (DynaPipe): the grouping sets the count; a rerun must not pin it.
  if (spec.seqLengths.empty()) w.key("microbatches").value(plan.numMicrobatches() / slices);
  w.key("chunks").value(plan.chunks);
  w.key("layers").value(plan.numLayers);
  w.key("boundaries").beginArray();
  for (int s = 1; s < plan.numStages; ++s)
    w.value(plan.placement[0][s].firstLayer);
  w.endArray();
  if (spec.partition == "memory") {
    w.key("partition").value(spec.partition);
    w.key("time_slack").value(spec.timeSlack);
  }
  w.key("steps").value(plan.steps);
  w.key("optimizer_sync").value(optimizerSyncName(plan.optimizerSync));
  w.key("recompute").value(plan.recompute);
  if (spec.splitBackward) w.key("split_backward").value(true);
  if (spec.maxDeferredW > 0) w.key("max_deferred_w").value(spec.maxDeferredW);
  if (spec.forwardOnly) w.key("forward_only").value(true);
  if (spec.balanceActivations) w.key("balance_activations").value(true);
  if (!plan.stagePreds.empty()) w.key("stage_graph").value(stageGraphText(plan.stagePreds));
  if (!spec.weightVersions.empty() && spec.weightVersions != "stash")
    w.key("weight_versions").value(spec.weightVersions);
  if (!spec.tokenSlices.empty()) {
    w.key("token_slices").value(spec.tokenSlices);
    w.key("seq_tokens").value(spec.seqTokens);
    w.key("attention_share").value(spec.attentionShare);
  }
  if (!spec.seqLengths.empty()) {
    // The lengths themselves, not "@FILE": a rerun needs no file.
    w.key("seq_lengths").value(resolvedLengths);
    w.key("microbatching")
        .value(spec.microbatching.empty() ? std::string("dp") : spec.microbatching);
    w.key("microbatch_tokens").value(spec.microbatchTokens);
    w.key("seq_tokens").value(spec.seqTokens);
    w.key("attention_share").value(spec.attentionShare);
  }
  if (spec.a2aMb > 0) {
    w.key("a2a_mb").value(spec.a2aMb);
    w.key("a2a").value(spec.a2a.empty() ? std::string("overlap") : spec.a2a);
  }
  if (spec.fetchMb > 0) {
    w.key("fetch_mb").value(spec.fetchMb);
    w.key("fetch").value(spec.fetch.empty() ? std::string("overlap") : spec.fetch);
    w.key("fetch_ahead").value(spec.fetchAhead);
  }
  if (spec.microbatchOverhead > 0) w.key("microbatch_overhead").value(spec.microbatchOverhead);
  if (spec.frozenUs > 0) {
    w.key("frozen_us").value(spec.frozenUs);
    w.key("fill").value(spec.fill.empty() ? std::string("bubbles") : spec.fill);
  }
  for (const auto& [key, values] : {std::pair{"rank_speed", &spec.rankSpeed},
                                    std::pair{"rank_memory_gb", &spec.rankMemoryGb}}) {
    if (values->empty()) continue;
    w.key(key).beginArray();
    for (double v : *values)
      w.value(v);
    w.endArray();
  }
  if (!spec.topology.empty()) {
    w.key("topology").value(spec.topology);
    w.key("inter_gbps").value(spec.interGbps);
    w.key("inter_latency_us").value(spec.interLatencyUs);
  }
  // The mapping used, not "auto": a rerun places the ranks the same way without searching.
  if (!isRankOrder(deviceOf)) w.key("mapping").value(deviceOrderText(deviceOf));
  // The uniform flags only when they made the costs: under a cost file or a given model they
  // were not used, and "costs" below holds what was (issue 30, item 10).
  if (!spec.costs && spec.costsFile.empty()) {
    w.key("fwd_us").value(spec.uniform.fwdUs);
    w.key("bwd_us").value(spec.uniform.bwdUs);
    w.key("wgrad_us").value(spec.uniform.wgradUs);
    w.key("act_mb").value(spec.uniform.actMb);
    w.key("param_mb").value(spec.uniform.paramMb);
    w.key("link_gbps").value(spec.uniform.linkGbps);
    w.key("link_latency_us").value(spec.uniform.linkLatencyUs);
  }
  if (!spec.costsFile.empty()) w.key("costs_file").value(spec.costsFile);
  // Costs given as a model (a prediction's calibrated costs) rather than by flags or a file:
  // a rerun must take the embedded "costs", not rebuild them from the uniform flags.
  if (spec.costs && spec.costsFile.empty()) w.key("costs_embedded").value(true);
  w.key("costs").raw(writeCostJson(cost));
  w.endObject();
  return w.str();
}

}  // namespace ps::runtime
