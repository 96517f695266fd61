#include "runtime/plan/OpGraphChecks.h"

#include <limits>
#include <string>

namespace ps::runtime::graph {
namespace {

std::string listMore(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 5; ++i)
    out += (i ? "; " : "") + items[i];
  if (items.size() > 5) out += "; and " + std::to_string(items.size() - 5) + " more";
  return out;
}

// The slow walk that names what is missing (only run once the fast scan found a problem).
Status describeMissing(const Plan& p, const ActionIndex& index) {
  std::vector<std::string> missing;
  for (int k = 0; k < p.steps; ++k)
    for (int m = 0; m < p.numMicrobatches(); ++m)
      for (int s = 0; s < p.numStages; ++s) {
        const bool f = index.find(OpKind::F, s, m, k) >= 0, b = index.find(OpKind::B, s, m, k) >= 0,
                   i = index.find(OpKind::I, s, m, k) >= 0, w = index.find(OpKind::W, s, m, k) >= 0;
        auto need = [&](OpKind kind) {
          missing.push_back(actionLabel(Action{kind, s, m, k}) + stepSuffix(p, k) + " (rank " +
                            std::to_string(p.rankOf(s, m)) + ")");
        };
        if (!f) need(OpKind::F);
        if (p.forwardOnly) {
          if (b || i || w)
            return Error{"stage " + std::to_string(s) + " micro-batch " + std::to_string(m) +
                         stepSuffix(p, k) + " has a backward op in a forward-only plan"};
          continue;
        }
        if (b && (i || w))
          return Error{"stage " + std::to_string(s) + " micro-batch " + std::to_string(m) +
                       stepSuffix(p, k) + " has both B and I/W"};
        if (!b && !i && !w) need(p.splitBackward ? OpKind::I : OpKind::B);
        if (!b && i && !w) need(OpKind::W);
        if (!b && w && !i) need(OpKind::I);
        if (p.recompute && index.find(OpKind::R, s, m, k) < 0) need(OpKind::R);
      }
  if (!missing.empty()) return Error{"missing ops: " + listMore(missing)};
  return {};
}

}  // namespace

std::string stepSuffix(const Plan& plan, int step) {
  return plan.steps > 1 ? " (step " + std::to_string(step) + ")" : "";
}

Status checkPlanShape(const Plan& p) {
  if (p.numRanks <= 0) return Error{"plan: needs at least one rank"};
  if (p.numStages <= 0) return Error{"plan: needs at least one stage"};
  if (p.microbatches.empty()) return Error{"plan: needs at least one micro-batch"};
  if (p.steps <= 0) return Error{"plan: needs at least one step"};
  if (static_cast<int>(p.programs.size()) != p.numRanks)
    return Error{"plan: has " + std::to_string(p.programs.size()) + " programs for " +
                 std::to_string(p.numRanks) + " ranks"};
  if (p.placement.empty()) return Error{"plan: has no stage placement"};
  for (std::size_t r = 0; r < p.placement.size(); ++r) {
    if (static_cast<int>(p.placement[r].size()) != p.numStages)
      return Error{"plan: replica " + std::to_string(r) + " places " +
                   std::to_string(p.placement[r].size()) + " of " + std::to_string(p.numStages) +
                   " stages"};
    for (int s = 0; s < p.numStages; ++s) {
      const int rank = p.placement[r][s].rank;
      if (rank < 0 || rank >= p.numRanks)
        return Error{"plan: stage " + std::to_string(s) + " is placed on unknown rank " +
                     std::to_string(rank) + " (ranks 0.." + std::to_string(p.numRanks - 1) + ")"};
    }
  }
  for (int m = 0; m < p.numMicrobatches(); ++m) {
    const auto& mb = p.microbatches[m];
    if (mb.replica < 0 || mb.replica >= p.numReplicas())
      return Error{"plan: micro-batch " + std::to_string(m) + " takes unknown replica " +
                   std::to_string(mb.replica)};
    if (mb.sliceOf >= m)
      return Error{"plan: micro-batch " + std::to_string(m) + " is a slice of a later micro-batch"};
  }
  if (!p.stagePreds.empty()) {
    if (static_cast<int>(p.stagePreds.size()) != p.numStages)
      return Error{"plan: stage graph lists " + std::to_string(p.stagePreds.size()) + " of " +
                   std::to_string(p.numStages) + " stages"};
    for (int s = 0; s < p.numStages; ++s)
      for (int pred : p.stagePreds[s])
        if (pred < 0 || pred >= s)
          return Error{"plan: stage " + std::to_string(s) + " has predecessor " +
                       std::to_string(pred) + " (predecessors must be earlier stages)"};
  }
  const double cells = static_cast<double>(p.steps) * kSlots * p.numStages * p.numMicrobatches();
  if (cells > 4e8) return Error{"plan: too large to index (steps × stages × micro-batches)"};
  // Node ids are 32-bit: every action plus one barrier node per step must fit.
  if (static_cast<double>(p.actionCount()) + p.steps >
      static_cast<double>(std::numeric_limits<std::int32_t>::max()))
    return Error{"plan: too many actions (" + std::to_string(p.actionCount()) + ")"};
  return {};
}

Error actionError(const Plan& p, int rank, const Action& a) {
  const std::string where = "rank " + std::to_string(rank) + ": ";
  if (a.step < 0 || a.step >= p.steps)
    return Error{where + actionLabel(a) + " has step " + std::to_string(a.step) + " outside 0.." +
                 std::to_string(p.steps - 1)};
  if (!trace::isCompute(a.kind))
    return Error{where + actionLabel(a) + " is a communication op in a compute program"};
  if (a.kind == OpKind::FILL && a.ahead != 0 && (a.ahead < 0 || a.step + a.ahead >= p.steps))
    return Error{where + actionLabel(a) + " of step " + std::to_string(a.step) + " feeds step " +
                 std::to_string(a.step + a.ahead) + ", which the plan (steps 0.." +
                 std::to_string(p.steps - 1) + ") does not have"};
  if (a.stage < 0 || a.stage >= p.numStages)
    return Error{where + actionLabel(a) + " names unknown stage " + std::to_string(a.stage) +
                 " (stages 0.." + std::to_string(p.numStages - 1) + ")"};
  if (a.microbatch < 0 || a.microbatch >= p.numMicrobatches())
    return Error{where + actionLabel(a) + " names unknown micro-batch " +
                 std::to_string(a.microbatch) + " (micro-batches 0.." +
                 std::to_string(p.numMicrobatches() - 1) + ")"};
  const int owner = p.rankOf(a.stage, a.microbatch);
  return Error{where + "runs " + actionLabel(a) + " but stage " + std::to_string(a.stage) +
               " (replica " + std::to_string(p.replicaOf(a.microbatch)) + ") is placed on rank " +
               std::to_string(owner)};
}

Status checkEveryOpPresent(const Plan& p, const ActionIndex& index) {
  // Fast scan over the index's contiguous runs; the slow walk names the culprits.
  const std::size_t cells = static_cast<std::size_t>(p.numStages) * p.numMicrobatches();
  for (int k = 0; k < p.steps; ++k) {
    const std::int32_t *f = index.cells(k, 0), *b = index.cells(k, 1), *i = index.cells(k, 2),
                       *w = index.cells(k, 3), *r = index.cells(k, 4);
    const auto has = [](const std::int32_t* t, std::size_t c) { return t && t[c] >= 0; };
    bool bad = false;
    for (std::size_t c = 0; c < cells; ++c) {
      const bool hasB = has(b, c), hasI = has(i, c), hasW = has(w, c);
      const bool backward =
          p.forwardOnly ? (hasB || hasI || hasW) : (hasB ? (hasI || hasW) : !(hasI && hasW));
      bad |= !has(f, c) || backward || (p.recompute && !has(r, c));
    }
    if (bad) return describeMissing(p, index);
  }
  return {};
}

}  // namespace ps::runtime::graph
