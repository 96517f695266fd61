#include "ui/PlanPanelCheck.h"

#include <algorithm>
#include <array>
#include <utility>

#include "runtime/run/BackendRefusals.h"
#include "runtime/run/Backends.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/TokenLayoutsOf.h"

namespace ps::ui {

Knob knobNamedIn(std::string_view message) {
  // The flags buildPlan's errors name, and the "(m=2, p=4)" of the generators' constraints.
  static constexpr std::array<std::pair<std::string_view, Knob>, 57> kTokens{{
      {"--microbatches", Knob::Microbatches},
      {"(m=", Knob::Microbatches},
      {" m=", Knob::Microbatches},
      {"microbatches must", Knob::Microbatches},
      {"micro-batches", Knob::Microbatches},
      {"--stages", Knob::Stages},
      {"(p=", Knob::Stages},
      {" p=", Knob::Stages},
      {"ranks must", Knob::Stages},
      {"--chunks", Knob::Chunks},
      {"(v=", Knob::Chunks},
      {" v=", Knob::Chunks},
      {"chunks must", Knob::Chunks},
      {"--layers", Knob::Layers},
      {"--boundaries", Knob::Layers},  // the editor's cut, made for another layer count
      {"--steps", Knob::Steps},
      {"--fwd-us", Knob::FwdUs},
      {"--bwd-us", Knob::BwdUs},
      {"--wgrad-us", Knob::WgradUs},
      {"--act-mb", Knob::ActMb},
      {"--link-gbps", Knob::LinkGbps},
      {"--link-latency-us", Knob::LinkLatency},
      {"hidden", Knob::Hidden},
      {"heads", Knob::Hidden},
      {"unknown model", Knob::Model},
      {"learning rate", Knob::Optimizer},
      {"optimizer", Knob::Optimizer},
      {"CUDA", Knob::Backend},
      {"--backend", Knob::Backend},
      {"--split-backward", Knob::SplitBackward},
      {"--max-deferred-w", Knob::SplitBackward},
      {"--forward-only", Knob::ForwardOnly},
      {"--balance-activations", Knob::BalanceActivations},
      {"--frozen-us", Knob::Frozen},
      {"--fill", Knob::Frozen},
      {"--weight-versions", Knob::WeightVersions},
      {"--stage-graph", Knob::StageGraph},
      {"--a2a-mb", Knob::AllToAll},
      {"--a2a ", Knob::AllToAll},
      {"--fetch-mb", Knob::EmbeddingFetch},
      {"--fetch ", Knob::EmbeddingFetch},
      {"--fetch-ahead", Knob::EmbeddingFetch},
      {"--token-slices", Knob::Sequences},
      {"--seq-lengths", Knob::Sequences},
      {"--microbatching", Knob::Sequences},
      {"--microbatch-tokens", Knob::Sequences},
      {"--microbatch-overhead", Knob::Sequences},
      {"--rank-speed", Knob::RankSpeed},
      {"--rank-memory-gb", Knob::RankMemory},
      {"--dp", Knob::DataParallel},
      {"--topology", Knob::Topology},
      {"--inter-gbps", Knob::InterGbps},
      {"--inter-latency-us", Knob::InterGbps},
      {"--mapping", Knob::Mapping},
      {"--partition", Knob::Partition},
      {"--time-slack", Knob::Partition},
      {"unknown schedule", Knob::Schedule},
  }};
  std::size_t best = std::string_view::npos;
  Knob knob = Knob::None;
  for (const auto& [token, k] : kTokens) {
    const std::size_t at = message.find(token);
    if (at < best) {
      best = at;
      knob = k;
    }
  }
  return knob;
}

namespace {

// The first plan feature `backend` never runs, in the runtime's words (checkPlanFeatures); empty
// when it runs them all, or when a backend that trains micro-batches of their own shapes cannot
// lay them out (the run says why: the model's --seq, not the backend).
std::string featureRefusal(const runtime::BackendInfo& backend, const runtime::BuiltPlan& built,
                           runtime::ModelConfig model) {
  if (!backend.trainsModel) return {};
  model.layers = built.plan.numLayers;
  auto tokens = runtime::tokenLayoutsOf(built, model);
  if (!tokens && backend.limits.shapedMicrobatches) return {};
  auto ok = runtime::checkPlanFeatures(backend.id, false, built.plan, tokens ? *tokens : nullptr);
  return ok ? std::string() : ok.error();
}

}  // namespace

std::optional<KnobProblem> checkRequest(const runtime::RunPlanRequest& request,
                                        const std::string& unavailable,
                                        std::vector<std::string>* refusals) {
  auto problem = [](std::string message) -> std::optional<KnobProblem> {
    const Knob knob = knobNamedIn(message);
    return KnobProblem{std::move(message), knob};
  };
  // The device last: what the plan asks of the backend is what the user can change here.
  auto device = [&]() -> std::optional<KnobProblem> {
    if (!unavailable.empty()) return KnobProblem{unavailable, Knob::Backend};
    return std::nullopt;
  };
  if (refusals) refusals->assign(runtime::backends().size(), std::string());
  const runtime::PlanSpec& spec = request.spec;
  if (runtime::trainsModel(request.backend))
    if (auto ok = runtime::checkModelOptions(request.backend, request.exec); !ok)
      return problem(ok.error());
  if (spec.costsFile.empty()) {
    runtime::UniformCostFlags flags = spec.uniform;
    flags.layers = spec.layers.value_or(1);
    if (auto cost = runtime::uniformCostModel(flags); !cost) return problem(cost.error());
  }
  const long p = spec.stages.value_or(4), m = spec.microbatches.value_or(8);
  if (spec.scheduleFile.empty() && spec.layers && *spec.layers < p * spec.chunks)
    return problem("--layers: the model has " + std::to_string(*spec.layers) +
                   " layers, fewer than the plan's " + std::to_string(p * spec.chunks) +
                   " stages (P·V)");
  // The whole plan, one step of it (steps only repeat what one step already checks).
  if (spec.scheduleFile.empty() && p * m * spec.chunks > kFullCheckLimit) return device();
  const long stages = p * spec.chunks, layers = spec.layers.value_or(stages);
  if (spec.boundaries.empty() && stages * layers * layers > kPartitionLimit) return device();
  runtime::PlanSpec oneStep = spec;
  oneStep.steps = std::min(spec.steps, 1);  // a bad count keeps its message
  // The mapping search simulates dozens of plans: too slow for every keystroke. Checked in
  // rank order (every mapping builds alike); the run searches.
  if (oneStep.mapping == "auto") oneStep.mapping.clear();
  // Reading the halo off a graph of a million nodes takes a second: checked on a node a chunk
  // (M nodes), which fails where the real graph would; a failure is named from the real one.
  if (oneStep.graphNodes > 0 && oneStep.graphNodes % m == 0)
    oneStep.graphNodes = static_cast<int>(m);
  auto built = runtime::buildPlan(oneStep);
  if (!built && oneStep.graphNodes != spec.graphNodes) {
    oneStep.graphNodes = spec.graphNodes;
    built = runtime::buildPlan(oneStep);
  }
  if (!built) return problem(built.error());
  const auto model = request.exec.model;
  if (refusals)
    for (const runtime::BackendInfo& row : runtime::backends())
      (*refusals)[static_cast<std::size_t>(row.id)] = featureRefusal(row, *built, model);
  if (std::string refused = featureRefusal(runtime::backendInfo(request.backend), *built, model);
      !refused.empty())
    return problem(std::move(refused));
  return device();
}

std::optional<KnobProblem> checkRequest(const runtime::RunPlanRequest& request,
                                        const std::string& cudaReason, std::string* cudaRefusal) {
  constexpr auto cuda = runtime::Backend::Cuda;  // the one backend this form speaks of
  std::vector<std::string> refusals;
  auto problem =
      checkRequest(request, request.backend == cuda ? cudaReason : std::string(), &refusals);
  if (cudaRefusal) *cudaRefusal = refusals[static_cast<std::size_t>(cuda)];
  return problem;
}

std::string_view knobTableKey(Knob knob) {
  static constexpr std::pair<Knob, std::string_view> kKeys[] = {
      {Knob::ActMb, "act_mb"},
      {Knob::FwdUs, "fwd_us"},
      {Knob::BwdUs, "bwd_us"},
      {Knob::WgradUs, "wgrad_us"},
      {Knob::SplitBackward, "split_backward"},
      {Knob::ForwardOnly, "forward_only"},
      {Knob::RankSpeed, "rank_speed"},
      {Knob::RankMemory, "rank_memory_gb"},
      {Knob::DataParallel, "dp"},
      {Knob::Topology, "topology"},
      {Knob::InterGbps, "inter_gbps"},
      {Knob::Mapping, "mapping"},
      {Knob::BalanceActivations, "balance_activations"},
      {Knob::Frozen, "frozen_us"},
      {Knob::StageGraph, "stage_graph"},
      {Knob::AllToAll, "a2a_mb"},
      {Knob::EmbeddingFetch, "fetch_mb"},
      {Knob::WeightVersions, "weight_versions"},
      {Knob::Partition, "partition"}};
  for (const auto& [k, key] : kKeys)
    if (k == knob) return key;
  return {};
}

}  // namespace ps::ui
