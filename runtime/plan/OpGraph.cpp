#include "runtime/plan/OpGraph.h"

#include <string>

namespace ps::runtime {
namespace {

// Dense slot of the five per-(stage, micro-batch) kinds.
int kindSlot(OpKind k) {
  switch (k) {
    case OpKind::F:
      return 0;
    case OpKind::B:
      return 1;
    case OpKind::I:
      return 2;
    case OpKind::W:
      return 3;
    case OpKind::R:
      return 4;
    default:
      return -1;
  }
}
constexpr int kSlots = 5;

std::string stepSuffix(const Plan& plan, int step) {
  return plan.steps > 1 ? " (step " + std::to_string(step) + ")" : "";
}

// Index of every (step, kind, stage, micro-batch) action; -1 where absent.
class ActionIndex {
 public:
  ActionIndex(const Plan& p) : S_(p.numStages), M_(p.numMicrobatches()) {
    slots_.assign(static_cast<std::size_t>(p.steps) * kSlots * S_ * M_, -1);
  }
  std::int32_t& at(OpKind k, int stage, int mb, int step) {
    return slots_[((static_cast<std::size_t>(step) * kSlots + kindSlot(k)) * S_ + stage) * M_ + mb];
  }
  std::int32_t find(OpKind k, int stage, int mb, int step) const {
    if (kindSlot(k) < 0) return -1;
    return slots_[((static_cast<std::size_t>(step) * kSlots + kindSlot(k)) * S_ + stage) * M_ + mb];
  }

 private:
  std::size_t S_, M_;
  std::vector<std::int32_t> slots_;
};

Status checkShape(const Plan& p) {
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
  return {};
}

// Checks one action against the plan; returns an error naming the rank and the op.
Status checkAction(const Plan& p, int rank, const Action& a) {
  const std::string where = "rank " + std::to_string(rank) + ": ";
  if (a.step < 0 || a.step >= p.steps)
    return Error{where + actionLabel(a) + " has step " + std::to_string(a.step) + " outside 0.." +
                 std::to_string(p.steps - 1)};
  if (!trace::isCompute(a.kind))
    return Error{where + actionLabel(a) + " is a communication op in a compute program"};
  if (a.kind == OpKind::OPT || a.kind == OpKind::FILL) return {};
  if (a.stage < 0 || a.stage >= p.numStages)
    return Error{where + actionLabel(a) + " names unknown stage " + std::to_string(a.stage) +
                 " (stages 0.." + std::to_string(p.numStages - 1) + ")"};
  if (a.microbatch < 0 || a.microbatch >= p.numMicrobatches())
    return Error{where + actionLabel(a) + " names unknown micro-batch " +
                 std::to_string(a.microbatch) + " (micro-batches 0.." +
                 std::to_string(p.numMicrobatches() - 1) + ")"};
  const int owner = p.rankOf(a.stage, a.microbatch);
  if (owner != rank)
    return Error{where + "runs " + actionLabel(a) + " but stage " + std::to_string(a.stage) +
                 " (replica " + std::to_string(p.replicaOf(a.microbatch)) + ") is placed on rank " +
                 std::to_string(owner)};
  return {};
}

std::string listMore(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 5; ++i)
    out += (i ? "; " : "") + items[i];
  if (items.size() > 5) out += "; and " + std::to_string(items.size() - 5) + " more";
  return out;
}

}  // namespace

Result<OpGraph> buildOpGraph(const Plan& p) {
  PS_TRY(checkShape(p));
  OpGraph g;
  ActionIndex index(p);
  const std::size_t total = p.actionCount();
  g.actions.reserve(total + p.steps);
  g.rank.reserve(total + p.steps);
  g.programPos.reserve(total + p.steps);
  g.rankNodes.resize(p.numRanks);
  std::vector<std::int32_t> optOf(static_cast<std::size_t>(p.numRanks) * p.steps, -1);

  for (int r = 0; r < p.numRanks; ++r) {
    const auto& program = p.programs[r];
    g.rankNodes[r].reserve(program.size());
    for (std::size_t i = 0; i < program.size(); ++i) {
      const Action& a = program[i];
      PS_TRY(checkAction(p, r, a));
      const auto id = static_cast<std::int32_t>(g.actions.size());
      if (a.kind == OpKind::OPT) {
        auto& slot = optOf[static_cast<std::size_t>(r) * p.steps + a.step];
        if (slot >= 0)
          return Error{"rank " + std::to_string(r) + ": duplicate OPT" + stepSuffix(p, a.step)};
        slot = id;
      } else if (a.kind != OpKind::FILL) {
        auto& slot = index.at(a.kind, a.stage, a.microbatch, a.step);
        if (slot >= 0)
          return Error{"duplicate op " + actionLabel(a) + stepSuffix(p, a.step) + " on rank " +
                       std::to_string(g.rank[slot]) + " and rank " + std::to_string(r)};
        slot = id;
      }
      g.actions.push_back(a);
      g.rank.push_back(r);
      g.programPos.push_back(static_cast<std::int32_t>(i));
      g.rankNodes[r].push_back(id);
    }
  }
  g.computeCount = g.actions.size();

  // Every stage of every micro-batch needs F, and B or I+W (and R under recompute).
  std::vector<std::string> missing;
  for (int k = 0; k < p.steps; ++k)
    for (int m = 0; m < p.numMicrobatches(); ++m)
      for (int s = 0; s < p.numStages; ++s) {
        const bool f = index.find(OpKind::F, s, m, k) >= 0, b = index.find(OpKind::B, s, m, k) >= 0,
                   i = index.find(OpKind::I, s, m, k) >= 0, w = index.find(OpKind::W, s, m, k) >= 0;
        const int owner = p.rankOf(s, m);
        auto need = [&](OpKind kind) {
          missing.push_back(actionLabel(Action{kind, s, m, k}) + stepSuffix(p, k) + " (rank " +
                            std::to_string(owner) + ")");
        };
        if (!f) need(OpKind::F);
        if (b && (i || w))
          return Error{"stage " + std::to_string(s) + " micro-batch " + std::to_string(m) +
                       stepSuffix(p, k) + " has both B and I/W"};
        if (!b && !i && !w) need(p.splitBackward ? OpKind::I : OpKind::B);
        if (!b && i && !w) need(OpKind::W);
        if (!b && w && !i) need(OpKind::I);
        if (p.recompute && index.find(OpKind::R, s, m, k) < 0) need(OpKind::R);
      }
  if (!missing.empty()) return Error{"missing ops: " + listMore(missing)};

  // Barrier nodes, one per step, when the optimizer waits for every rank.
  std::vector<std::int32_t> barrierOf(p.steps, -1);
  bool anyOpt = false;
  for (auto id : optOf)
    anyOpt |= id >= 0;
  if (anyOpt && p.optimizerSync == OptimizerSync::Barrier) {
    for (int k = 0; k < p.steps; ++k) {
      barrierOf[k] = static_cast<std::int32_t>(g.actions.size());
      g.actions.push_back(Action{OpKind::OPT, -1, -1, k});
      g.rank.push_back(-1);
      g.programPos.push_back(-1);
    }
  }

  // Backward ops of a step on a rank (for OPT without barrier) and of a step (for the barrier).
  auto isGradOp = [](OpKind k) { return k == OpKind::B || k == OpKind::W; };

  // Two passes over the same rules: count, then fill (CSR without per-node vectors).
  std::vector<std::vector<std::int32_t>> extraDeps;
  if (!p.extraEdges.empty()) {
    extraDeps.resize(g.actions.size());
    for (const auto& e : p.extraEdges) {
      const auto find = [&](const ActionRef& r) -> std::int32_t {
        if (r.stage < 0 || r.stage >= p.numStages || r.microbatch < 0 ||
            r.microbatch >= p.numMicrobatches() || r.step < 0 || r.step >= p.steps)
          return -1;
        return index.find(r.kind, r.stage, r.microbatch, r.step);
      };
      const auto before = find(e.before), after = find(e.after);
      if (before < 0 || after < 0)
        return Error{"extra dependency " + actionLabel(e.before) + " -> " + actionLabel(e.after) +
                     " names an op the plan does not have"};
      extraDeps[after].push_back(before);
    }
  }

  std::vector<std::vector<int>> predsOf(p.numStages), succsOf(p.numStages);
  for (int s = 0; s < p.numStages; ++s) {
    predsOf[s] = p.predecessors(s);
    succsOf[s] = p.successors(s);
  }
  auto forEachDep = [&](std::size_t node, auto&& emit) {
    const Action& a = g.actions[node];
    const int s = a.stage, m = a.microbatch, k = a.step;
    switch (a.kind) {
      case OpKind::F:
        for (int pred : predsOf[s])
          emit(index.find(OpKind::F, pred, m, k));
        if (p.microbatches[m].sliceOf >= 0)
          emit(index.find(OpKind::F, s, p.microbatches[m].sliceOf, k));
        break;
      case OpKind::R:
        emit(index.find(OpKind::F, s, m, k));
        break;
      case OpKind::B:
      case OpKind::I: {
        emit(index.find(OpKind::F, s, m, k));
        if (const auto r = index.find(OpKind::R, s, m, k); r >= 0) emit(r);
        for (int succ : succsOf[s]) {
          const auto b = index.find(OpKind::B, succ, m, k);
          emit(b >= 0 ? b : index.find(OpKind::I, succ, m, k));
        }
        break;
      }
      case OpKind::W:
        emit(index.find(OpKind::I, s, m, k));
        break;
      default:
        break;  // OPT and barriers: see depsFor; FILL has no dependencies
    }
    if (!extraDeps.empty() && node < extraDeps.size())
      for (auto d : extraDeps[node])
        emit(d);
  };

  // OPT rules: grad ops per step (barrier) or per (rank, step), gathered in one pass.
  std::vector<std::vector<std::int32_t>> barrierDeps(p.steps);
  if (anyOpt && p.optimizerSync == OptimizerSync::Barrier)
    for (std::size_t j = 0; j < g.computeCount; ++j)
      if (isGradOp(g.actions[j].kind))
        barrierDeps[g.actions[j].step].push_back(static_cast<std::int32_t>(j));
  std::vector<std::vector<std::int32_t>> rankStepGrads;
  if (anyOpt && p.optimizerSync == OptimizerSync::None) {
    rankStepGrads.resize(static_cast<std::size_t>(p.numRanks) * p.steps);
    for (std::size_t j = 0; j < g.computeCount; ++j)
      if (isGradOp(g.actions[j].kind))
        rankStepGrads[static_cast<std::size_t>(g.rank[j]) * p.steps + g.actions[j].step].push_back(
            static_cast<std::int32_t>(j));
  }
  auto depsFor = [&](std::size_t node, auto&& emit) {
    const Action& a = g.actions[node];
    if (g.rank[node] < 0) {
      for (auto j : barrierDeps[a.step])
        emit(j);
    } else if (a.kind == OpKind::OPT && barrierOf[a.step] >= 0) {
      emit(barrierOf[a.step]);
    } else if (a.kind == OpKind::OPT) {
      for (auto j : rankStepGrads[static_cast<std::size_t>(g.rank[node]) * p.steps + a.step])
        emit(j);
    } else {
      forEachDep(node, emit);
    }
  };

  const std::size_t n = g.actions.size();
  g.depBegin.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t count = 0;
    depsFor(i, [&](std::int32_t) { ++count; });
    g.depBegin[i + 1] = g.depBegin[i] + count;
  }
  g.deps.resize(g.depBegin[n]);
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t at = g.depBegin[i];
    depsFor(i, [&](std::int32_t d) { g.deps[at++] = d; });
  }
  return g;
}

}  // namespace ps::runtime
