#include "runtime/run/PlanSize.h"

#include <set>

#include "runtime/cost/Partitioner.h"
#include "runtime/plan/PlanLimits.h"
#include "runtime/schedules/Schedule.h"

namespace ps::runtime {
namespace {

std::string plural(double n, const std::string& one, const std::string& many) {
  return formatCount(n) + " " + (n == 1 ? one : many);
}

// Ops per (stage, micro-batch) and chunks per rank, read off the schedule generated at a size
// every generator accepts (p = 2, m = 4): exact whatever the schedule does, and instant.
struct Shape {
  int chunks = 1;
  double opsPerPair = 2;
  std::string kinds = "F, B";
};

Shape probe(const PlanSpec& spec) {
  ScheduleParams small;
  small.ranks = 2;
  small.microbatches = 4;
  small.chunks = spec.chunks;
  small.steps = 1;
  auto plan = generateSchedule(spec.schedule, small);
  Shape shape;
  if (!plan || plan->numStages <= 0) {  // the real generation will say why; bound generously
    shape.chunks = std::max(spec.chunks, 2);
    shape.opsPerPair = 3;
    shape.kinds = "up to F, I, W";
    return shape;
  }
  std::size_t pairOps = 0;
  std::set<OpKind> kinds;
  for (const auto& program : plan->programs)
    for (const Action& a : program)
      if (a.stage >= 0 && a.microbatch >= 0) {
        ++pairOps;
        kinds.insert(a.kind);
      }
  shape.chunks = std::max(1, plan->numStages / small.ranks);
  shape.opsPerPair = static_cast<double>(pairOps) /
                     (static_cast<double>(plan->numStages) * plan->numMicrobatches());
  shape.kinds.clear();
  for (OpKind k : kinds)
    shape.kinds += (shape.kinds.empty() ? "" : ", ") + std::string(trace::opKindName(k));
  return shape;
}

}  // namespace

Status checkPlanSize(const PlanSpec& spec) {
  if (!spec.scheduleFile.empty()) return {};
  const double p = spec.stages.value_or(4), m = spec.microbatches.value_or(8);
  const double steps = spec.steps;
  Shape shape = probe(spec);
  if (spec.recompute) {
    shape.opsPerPair += 1;
    shape.kinds += ", R";
  }
  // The optimizer step: one per rank and step.
  const double actions = p * shape.chunks * m * steps * shape.opsPerPair + p * steps;
  if (actions > kMaxPlanActions) {
    std::string product = plural(p, "stage", "stages");
    if (shape.chunks > 1) product += " × " + plural(shape.chunks, "chunk", "chunks");
    product += " × " + plural(m, "micro-batch", "micro-batches") + " × " +
               plural(steps, "step", "steps") + " × " + plural(shape.opsPerPair, "op", "ops") +
               " (" + shape.kinds + ")";
    return Error{"plan too large: " + product + " = " + formatCount(actions) + " actions (limit " +
                 formatCount(kMaxPlanActions) + ")"};
  }
  // The partitioner's table, when it will run on the uniform flags' layers (a cost file's layer
  // count is known only once read: partitionLayers checks it then).
  if (spec.boundaries.empty() && spec.costsFile.empty() && !spec.costs) {
    const double stages = p * shape.chunks;
    const double layers = spec.layers.value_or(static_cast<int>(stages));
    const double cells = stages * (layers - stages + 1);
    if (cells > static_cast<double>(kMaxPartitionCells))
      return Error{"plan too large: balancing " + plural(layers, "layer", "layers") + " over " +
                   plural(stages, "stage", "stages") + " needs " + formatCount(cells) +
                   " table cells (limit " + formatCount(static_cast<double>(kMaxPartitionCells)) +
                   "); give --boundaries or fewer layers"};
  }
  return {};
}

Status checkPlanActions(const Plan& oneStep, int steps, const std::string& source) {
  const double actions = static_cast<double>(oneStep.actionCount()) * steps;
  if (actions > kMaxPlanActions)
    return Error{"plan too large: " + source + " has " +
                 plural(static_cast<double>(oneStep.actionCount()), "action", "actions") + " × " +
                 plural(steps, "step", "steps") + " = " + formatCount(actions) +
                 " actions (limit " + formatCount(kMaxPlanActions) + ")"};
  return {};
}

}  // namespace ps::runtime
