#include "runtime/synth/SynthProblem.h"

#include <limits>
#include <utility>

#include "runtime/run/DeviceFlags.h"
#include "runtime/sim/MemoryTracker.h"
#include "runtime/sim/OpCosts.h"

namespace ps::runtime::synth {
namespace {

// The knobs that change what a step is made of, which the search does not model: each refused
// by its flag, with what to do instead.
Status checkSynthKnobs(const PlanSpec& s) {
  auto refuse = [](const std::string& flag, const std::string& why) {
    return Error{"synth: " + flag + ": " + why};
  };
  if (!s.scheduleFile.empty())
    return refuse("--schedule-file", "synth writes a schedule; it does not start from one");
  if (s.steps != 1)
    return refuse("--steps",
                  "a synthesised schedule is one step (a torch CSV holds one); run "
                  "it for more with sim --schedule-file X.csv --steps N");
  if (s.dataParallel != 1) return refuse("--dp", "replicated pipelines are not synthesised");
  if (!s.tokenSlices.empty() || !s.seqLengths.empty())
    return refuse(s.tokenSlices.empty() ? "--seq-lengths" : "--token-slices",
                  "variable micro-batches are not synthesised");
  if (!s.stageGraph.empty()) return refuse("--stage-graph", "only a chain of stages");
  if (s.recompute) return refuse("--recompute", "recomputation is not synthesised");
  if (s.forwardOnly) return refuse("--forward-only", "an inference step has no order to choose");
  if (!s.weightVersions.empty())
    return refuse("--weight-versions", "synthesised schedules are synchronous");
  if (s.balanceActivations) return refuse("--balance-activations", "not synthesised");
  if (s.frozenUs > 0) return refuse("--frozen-us", "bubble filling is not synthesised");
  if (s.a2aMb > 0 || s.fetchMb > 0)
    return refuse(s.a2aMb > 0 ? "--a2a-mb" : "--fetch-mb", "collectives are not synthesised");
  if (s.mapping == "auto") return refuse("--mapping auto", "give the device list");
  if (s.chunks < 1 || s.chunks > 8) return refuse("--chunks", "give 1..8");
  return {};
}

Status checkPlacement(const SynthRequest& r) {
  const std::string placement = placementOf(r);
  if (placement != "looped" && placement != "v")
    return Error{"synth: --placement " + placement + ": give looped or v"};
  if (placement == "v" && r.spec.chunks != 2)
    return Error{"synth: --placement v: the V-shape holds 2 chunks per rank (give --chunks 2)"};
  if (placement == "v" && !r.splitBackward)
    return Error{
        "synth: --placement v with --no-split: the V-shape is ZB-V's, whose backward "
        "is split"};
  return {};
}

bool isSynthKind(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W;
}

}  // namespace

std::string placementOf(const SynthRequest& request) {
  if (!request.placement.empty()) return request.placement;
  return request.spec.chunks == 2 ? "v" : "looped";
}

PlanSpec skeletonSpec(const SynthRequest& request) {
  PlanSpec s = request.spec;
  const bool vShape = placementOf(request) == "v";
  s.schedule = vShape ? "zb-v" : s.chunks > 1 ? "interleaved-1f1b" : "1f1b";
  s.splitBackward = request.splitBackward && !vShape;  // ZB-V's backward is split already
  s.maxDeferredW = 0;
  s.rankMemoryGb.clear();  // the cut every generator gets; the caps bind the search
  return s;
}

Result<SynthProblem> synthProblem(const SynthRequest& request) {
  PS_TRY(checkSynthKnobs(request.spec));
  PS_TRY(checkPlacement(request));
  auto built = buildPlan(skeletonSpec(request));
  if (!built) return Error{"synth: " + built.error()};
  PS_TRY(applyRankFlags(request.spec, built->plan.numRanks, built->cost));
  auto skeleton = std::make_shared<const BuiltPlan>(std::move(*built));
  const Plan& plan = skeleton->plan;
  const OpGraph& graph = skeleton->graph;

  SynthProblem p;
  p.skeleton = skeleton;
  sim::OpCosts costs(plan, skeleton->cost);
  MemoryTracker memory(plan, skeleton->cost);
  std::vector<std::int32_t> opOfNode(graph.size(), -1);
  p.tails.resize(static_cast<std::size_t>(plan.numRanks));
  for (int r = 0; r < plan.numRanks; ++r) {
    p.baseBytes.push_back(memory.baseBytes(r));
    const auto cap = skeleton->cost.capacityOf(r);
    p.capBytes.push_back(cap ? *cap : std::numeric_limits<std::int64_t>::max());
    for (std::size_t i = 0; i < graph.rankSize(r); ++i) {
      const auto node = graph.rankNode(r, i);
      const Action& a = graph.actions[node];
      if (!isSynthKind(a.kind)) {
        p.tails[r].push_back(a);
        continue;
      }
      SynthOp op{a, r, costs.duration(a, r), 0, 0};
      if (a.kind == OpKind::F) op.allocBytes = memory.keptAfterForward(a.stage, a.microbatch);
      if (a.kind == (plan.splitBackward ? OpKind::W : OpKind::B))
        op.freeBytes = memory.keptAfterForward(a.stage, a.microbatch);
      opOfNode[node] = static_cast<std::int32_t>(p.ops.size());
      p.ops.push_back(op);
    }
  }
  p.channels = static_cast<int>(costs.channelCount());
  p.depBegin.push_back(0);
  for (std::size_t node = 0; node < graph.size(); ++node) {
    if (opOfNode[node] < 0) continue;
    const SynthOp& consumer = p.ops[opOfNode[node]];
    for (std::int32_t d : graph.depsOf(node)) {
      if (opOfNode[d] < 0) continue;
      const SynthOp& producer = p.ops[opOfNode[d]];
      SynthDep dep{opOfNode[d], 0, 0, -1};
      if (producer.rank != consumer.rank) {
        const OpKind send = producer.action.kind == OpKind::F ? OpKind::SEND_F : OpKind::SEND_B;
        const auto bytes = costs.transferBytes(send, producer.action.stage, consumer.action.stage,
                                               consumer.action.microbatch);
        const LinkCost& link = costs.link(producer.rank, consumer.rank);
        if (link.bytesPerNs > 0) {
          dep.occupyNs = sim::roundNs(static_cast<double>(bytes) / link.bytesPerNs);
          dep.channel = static_cast<std::int32_t>(costs.channel(producer.rank, consumer.rank));
        }
        dep.latencyNs = costs.latency(producer.rank, consumer.rank);
      }
      p.deps.push_back(dep);
      p.consumerOf.push_back(opOfNode[node]);
    }
    p.depBegin.push_back(static_cast<std::int32_t>(p.deps.size()));
  }
  // Consumers of each op, as indices of their dependency entries.
  p.succBegin.assign(p.ops.size() + 1, 0);
  for (const SynthDep& d : p.deps)
    ++p.succBegin[static_cast<std::size_t>(d.op) + 1];
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    p.succBegin[i + 1] += p.succBegin[i];
  p.succs.resize(p.deps.size());
  std::vector<std::int32_t> fill(p.succBegin.begin(), p.succBegin.end() - 1);
  for (std::size_t k = 0; k < p.deps.size(); ++k)
    p.succs[static_cast<std::size_t>(fill[p.deps[k].op]++)] = static_cast<std::int32_t>(k);
  return p;
}

}  // namespace ps::runtime::synth
