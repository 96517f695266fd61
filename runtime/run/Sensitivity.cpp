#include "runtime/run/Sensitivity.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "runtime/plan/PlanLimits.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

// Mean over steps of the span of each step's compute records.
std::int64_t meanStepNs(const SimResult& sim) {
  std::map<int, std::pair<std::int64_t, std::int64_t>> span;
  for (const SimRecord& r : sim.records) {
    auto [it, fresh] = span.try_emplace(r.step, r.start_ns, r.end_ns);
    if (!fresh) {
      it->second.first = std::min(it->second.first, r.start_ns);
      it->second.second = std::max(it->second.second, r.end_ns);
    }
  }
  if (span.empty()) return 0;
  double sum = 0;
  for (const auto& [step, s] : span)
    sum += static_cast<double>(s.second - s.first);
  return static_cast<std::int64_t>(sum / static_cast<double>(span.size()) + 0.5);
}

void scale(LayerCost& layer, trace::OpKind kind, double factor) {
  switch (kind) {
    case trace::OpKind::F:
      layer.fwdNs *= factor;
      break;
    case trace::OpKind::B:
      layer.inputGradNs *= factor;
      layer.weightGradNs *= factor;
      break;
    case trace::OpKind::I:
      layer.inputGradNs *= factor;
      break;
    case trace::OpKind::W:
      layer.weightGradNs *= factor;
      break;
    default:
      break;
  }
}

// Mean duration of each (stage, kind) over the run's compute ops.
std::map<std::pair<int, trace::OpKind>, double> meanDurations(const trace::RunTrace& run) {
  std::map<std::pair<int, trace::OpKind>, std::pair<double, int>> sums;
  for (const auto& rank : run.ranks) {
    const trace::OpColumns& c = rank.lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c.stage[i] >= 0) {
        auto& [sum, n] = sums[{c.stage[i], c.kind[i]}];
        sum += static_cast<double>(c.duration(i));
        ++n;
      }
  }
  std::map<std::pair<int, trace::OpKind>, double> means;
  for (const auto& [key, v] : sums)
    means[key] = v.first / v.second;
  return means;
}

// The (stage, kind) pairs the programs hold, and a rank each runs on.
std::map<std::pair<int, trace::OpKind>, int> stageKindPairs(const Plan& plan) {
  std::map<std::pair<int, trace::OpKind>, int> pairs;
  for (std::size_t r = 0; r < plan.programs.size(); ++r)
    for (const Action& a : plan.programs[r])
      if (a.stage >= 0 && (a.kind == trace::OpKind::F || a.kind == trace::OpKind::B ||
                           a.kind == trace::OpKind::I || a.kind == trace::OpKind::W))
        pairs.try_emplace({a.stage, a.kind}, static_cast<int>(r));
  return pairs;
}

}  // namespace

void useMeasuredCosts(BuiltPlan& built, const trace::RunTrace& run) {
  const auto means = meanDurations(run);
  auto mean = [&](int stage, trace::OpKind kind) -> std::optional<double> {
    const auto it = means.find({stage, kind});
    return it == means.end() ? std::nullopt : std::optional<double>(it->second);
  };
  if (built.plan.placement.empty()) return;
  const auto& stages = built.plan.placement[0];
  for (int s = 0; s < static_cast<int>(stages.size()); ++s) {
    const int first = stages[s].firstLayer, last = stages[s].lastLayer;
    if (first < 0 || last >= static_cast<int>(built.cost.layers.size()) || last < first) continue;
    const double n = last - first + 1;
    for (int l = first; l <= last; ++l) {
      LayerCost& layer = built.cost.layers[l];
      if (const auto f = mean(s, trace::OpKind::F)) layer.fwdNs = *f / n;
      const auto i = mean(s, trace::OpKind::I), w = mean(s, trace::OpKind::W);
      if (i) layer.inputGradNs = *i / n;
      if (w) layer.weightGradNs = *w / n;
      if (const auto b = mean(s, trace::OpKind::B); b && !i && !w) {
        const double whole = layer.inputGradNs + layer.weightGradNs;
        const double wShare = whole > 0 ? layer.weightGradNs / whole : 0.5;
        layer.inputGradNs = *b / n * (1 - wShare);
        layer.weightGradNs = *b / n * wShare;
      }
    }
  }
  for (RankCost& r : built.cost.ranks)
    r.speed = 1.0;
}

SensitivitySize sensitivitySize(const BuiltPlan& built) {
  const auto pairs = stageKindPairs(built.plan);
  return {1 + static_cast<int>(pairs.size()), static_cast<double>(built.plan.actionCount())};
}

Result<std::vector<trace::StepSpeedup>> stepSensitivity(const BuiltPlan& built, double speedup,
                                                        const std::atomic<bool>* cancel) {
  const Plan& plan = built.plan;
  const auto pairs = stageKindPairs(plan);
  const SensitivitySize size = sensitivitySize(built);
  if (size.total() > kMaxSensitivityActions)
    return Error{"sensitivity: " + std::to_string(size.simulations) + " simulations of a plan of " +
                 formatCount(size.actionsEach) + " actions = " + formatCount(size.total()) +
                 " actions (limit " + formatCount(kMaxSensitivityActions) +
                 "): too large to re-simulate; try it on a run with fewer micro-batches or steps"};
  const Error cancelled{"sensitivity cancelled"};
  // What-ifs of the cost model, not runs: only step times are read, so no run is built in memory
  // (previewPlan) and no memory cap is checked (simulatePlan): a recorded cpu run's plan costs
  // may pass a cap its model met, and a table of it should still be made.
  auto base = simulate(plan, built.graph, built.cost, cancel);
  if (cancel != nullptr && cancel->load()) return cancelled;
  if (!base) return Error{"sensitivity: " + base.error()};
  const std::int64_t baseNs = meanStepNs(*base);
  std::vector<trace::StepSpeedup> rows;
  for (const auto& [key, rank] : pairs) {
    const auto [stage, kind] = key;
    if (plan.placement.empty() || stage >= static_cast<int>(plan.placement[0].size())) continue;
    CostModel cost = built.cost;
    const StagePlacement& where = plan.placement[0][stage];
    for (int l = where.firstLayer; l <= where.lastLayer && l < static_cast<int>(cost.layers.size());
         ++l)
      scale(cost.layers[l], kind, 1.0 - speedup);
    auto sim = simulate(plan, built.graph, cost, cancel);
    if (cancel != nullptr && cancel->load()) return cancelled;
    if (!sim) return Error{"sensitivity: " + sim.error()};
    const std::int64_t ns = meanStepNs(*sim);
    rows.push_back({kind, stage, rank, ns, baseNs - ns});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tuple(-a.savedNs, a.stage, static_cast<int>(a.kind)) <
           std::tuple(-b.savedNs, b.stage, static_cast<int>(b.kind));
  });
  return rows;
}

}  // namespace ps::runtime
