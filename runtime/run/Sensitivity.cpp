#include "runtime/run/Sensitivity.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

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

}  // namespace

Result<std::vector<trace::StepSpeedup>> stepSensitivity(const BuiltPlan& built, double speedup) {
  const Plan& plan = built.plan;
  auto base = simulate(plan, built.graph, built.cost);
  if (!base) return Error{"sensitivity: " + base.error()};
  const std::int64_t baseNs = meanStepNs(*base);
  // The (stage, kind) pairs the programs hold, and a rank each runs on.
  std::map<std::pair<int, trace::OpKind>, int> pairs;
  for (std::size_t r = 0; r < plan.programs.size(); ++r)
    for (const Action& a : plan.programs[r])
      if (a.stage >= 0 && (a.kind == trace::OpKind::F || a.kind == trace::OpKind::B ||
                           a.kind == trace::OpKind::I || a.kind == trace::OpKind::W))
        pairs.try_emplace({a.stage, a.kind}, static_cast<int>(r));
  std::vector<trace::StepSpeedup> rows;
  for (const auto& [key, rank] : pairs) {
    const auto [stage, kind] = key;
    if (plan.placement.empty() || stage >= static_cast<int>(plan.placement[0].size())) continue;
    CostModel cost = built.cost;
    const StagePlacement& where = plan.placement[0][stage];
    for (int l = where.firstLayer; l <= where.lastLayer && l < static_cast<int>(cost.layers.size());
         ++l)
      scale(cost.layers[l], kind, 1.0 - speedup);
    auto sim = simulate(plan, built.graph, cost);
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
