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
  double allToAllOpsPerPair = 2;  // the F, B and I ops, each followed by --a2a-mb's copies
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
    shape.allToAllOpsPerPair = 3;
    shape.kinds = "up to F, I, W";
    return shape;
  }
  std::size_t pairOps = 0, allToAllOps = 0;
  std::set<OpKind> kinds;
  for (const auto& program : plan->programs)
    for (const Action& a : program)
      if (a.stage >= 0 && a.microbatch >= 0) {
        ++pairOps;
        allToAllOps += a.kind == OpKind::F || a.kind == OpKind::B || a.kind == OpKind::I;
        kinds.insert(a.kind);
      }
  shape.chunks = std::max(1, plan->numStages / small.ranks);
  const double pairs = static_cast<double>(plan->numStages) * plan->numMicrobatches();
  shape.opsPerPair = static_cast<double>(pairOps) / pairs;
  shape.allToAllOpsPerPair = static_cast<double>(allToAllOps) / pairs;
  shape.kinds.clear();
  for (OpKind k : kinds)
    shape.kinds += (shape.kinds.empty() ? "" : ", ") + std::string(trace::opKindName(k));
  return shape;
}

// Actions of a generated plan of m micro-batches (all replicas' together), and the per-op records
// the communication-lane flags add to them (the simulation holds one per copy, like an action):
// --a2a-mb sends one share to each of a stage's D - 1 twins after every F, B and I, and
// --fetch-mb gathers from the pipeline's p - 1 other ranks before every F of stage 0 (p records).
struct ActionCount {
  Shape shape;
  double actions = 0;  // the plan's own
  double total = 0;    // with the copies named in `extras`
  std::string extras;
};

ActionCount countActions(const PlanSpec& spec, double m) {
  const double p = spec.stages.value_or(4), steps = spec.steps;
  const double d = std::max(spec.dataParallel, 1);
  Shape shape = probe(spec);
  if (spec.recompute) {
    shape.opsPerPair += 1;
    shape.kinds += ", R";
  }
  // The optimizer step (and with replicas the all-reduce): per rank and step.
  const double pairs = p * shape.chunks * m * steps;
  const double actions = pairs * shape.opsPerPair + p * d * steps * (d > 1 ? 2 : 1);
  std::string extras;
  double total = actions;
  if (spec.a2aMb > 0 && d > 1) {
    const double copies = pairs * shape.allToAllOpsPerPair * (d - 1);
    total += copies;
    extras += " + " + formatCount(copies) + " all-to-all copies (--a2a-mb over --dp " +
              formatCount(d) + ": " + formatCount(d - 1) + " after each F, B, I)";
  }
  if (spec.fetchMb > 0) {
    const double copies = m * steps * p;
    total += copies;
    extras += " + " + formatCount(copies) + " fetch copies (--fetch-mb: " + formatCount(p) +
              " per F of stage 0)";
  }
  return {shape, actions, total, extras};
}

// `what` opens the message ("--seq-lengths: 600 sequences in 300 micro-batches: ").
Status checkActions(const PlanSpec& spec, double m, const std::string& what) {
  const auto [shape, actions, total, extras] = countActions(spec, m);
  if (total <= kMaxPlanActions) return {};
  const double p = spec.stages.value_or(4), steps = spec.steps;
  std::string product = plural(p, "stage", "stages");
  if (shape.chunks > 1) product += " × " + plural(shape.chunks, "chunk", "chunks");
  product += " × " + plural(m, "micro-batch", "micro-batches") + " × " +
             plural(steps, "step", "steps") + " × " + plural(shape.opsPerPair, "op", "ops") + " (" +
             shape.kinds + ")";
  std::string sum = formatCount(actions) + " actions";
  if (!extras.empty()) sum += extras + " = " + formatCount(total);
  return Error{"plan too large: " + what + product + " = " + sum + " (limit " +
               formatCount(kMaxPlanActions) + ")"};
}

}  // namespace

Status checkPlanSize(const PlanSpec& spec) {
  if (!spec.scheduleFile.empty()) return {};
  const double p = spec.stages.value_or(4);
  // --seq-lengths sets the micro-batch count by grouping its sequences, --token-slices
  // multiplies it by the slices: both are checked once known, before generation
  // (checkVariantPlanSize); here the count given (or 8) is a lower bound.
  PS_TRY(checkActions(spec, spec.microbatches.value_or(8), ""));
  // The partitioner's table, when it will run on the uniform flags' layers (a cost file's layer
  // count is known only once read: partitionLayers checks it then).
  if (spec.boundaries.empty() && spec.costsFile.empty() && !spec.costs) {
    const double stages = p * probe(spec).chunks;
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

double estimatedPlanActions(const PlanSpec& spec) {
  return countActions(spec, spec.microbatches.value_or(8)).total;
}

Status checkVariantPlanSize(const PlanSpec& spec, int microbatches, const std::string& how) {
  return checkActions(spec, microbatches, how);
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
