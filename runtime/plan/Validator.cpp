#include "runtime/plan/Validator.h"

#include <string>

#include "runtime/plan/ActivationMoves.h"

namespace ps::runtime {
namespace {

std::string label(const Plan& p, const OpGraph& g, std::int32_t node) {
  const Action& a = g.actions[node];
  if (g.isVirtual(node)) return "the optimizer barrier of step " + std::to_string(a.step);
  std::string text = actionLabel(a);
  if (p.steps > 1) text += " (step " + std::to_string(a.step) + ")";
  return text;
}

// Replays every rank's program in order with zero-time ops. Ranks advance while their next
// action's dependencies are done; a rank blocked on an op parks on it and wakes when it is done.
// A rank parks on one op at a time, so the parked ranks form intrusive lists (a head per op, a
// next per rank): no per-op containers.
class InOrderReplay {
 public:
  InOrderReplay(const Plan& p, const OpGraph& g)
      : p_(p),
        g_(g),
        state_(g.size(), kNone),
        head_(static_cast<std::size_t>(p.numRanks), 0),
        nextWaiter_(static_cast<std::size_t>(p.numRanks), -1) {}

  // True when every program ran to the end.
  bool run() {
    std::vector<int> work;
    work.reserve(static_cast<std::size_t>(p_.numRanks));
    for (int r = 0; r < p_.numRanks; ++r)
      work.push_back(r);
    while (!work.empty()) {
      const int r = work.back();
      work.pop_back();
      advance(r, work);
    }
    for (int r = 0; r < p_.numRanks; ++r)
      if (head_[r] < g_.rankSize(r)) return false;
    return true;
  }

  // The first dependency of `node` that is not done, looking through barrier nodes; -1 if none.
  std::int32_t blocker(std::int32_t node) const {
    for (auto d : g_.depsOf(node)) {
      if (done(d)) continue;
      if (g_.isVirtual(d)) {
        const auto inner = blocker(d);
        return inner >= 0 ? inner : d;
      }
      return d;
    }
    return -1;
  }
  std::int32_t headNode(int r) const {
    return head_[r] < g_.rankSize(r) ? g_.rankNode(r, head_[r]) : -1;
  }

 private:
  // The unit starting at the head: one action, or two when the first overlaps the next.
  std::size_t unitSize(int r) const {
    const std::size_t h = head_[r];
    return (g_.actions[g_.rankNode(r, h)].overlapNext && h + 1 < g_.rankSize(r)) ? 2 : 1;
  }

  std::int32_t unitBlocker(int r) {
    const std::size_t n = unitSize(r);
    const std::int32_t first = g_.rankNode(r, head_[r]);
    for (std::size_t i = 0; i < n; ++i) {
      const auto node = first + static_cast<std::int32_t>(i);
      for (auto d : g_.depsOf(node)) {
        if (done(d)) continue;
        if (n == 2 && d == first) continue;  // the overlapped partner
        if (g_.isVirtual(d) && resolveVirtual(d)) continue;
        return d;
      }
    }
    return -1;
  }

  bool resolveVirtual(std::int32_t v) {
    for (auto d : g_.depsOf(v))
      if (!done(d)) return false;
    state_[v] = kDone;
    return true;
  }

  void advance(int r, std::vector<int>& work) {
    while (head_[r] < g_.rankSize(r)) {
      const auto b = unitBlocker(r);
      if (b >= 0) {
        // Park on the real op that blocks (barriers park on one of their own blockers).
        const auto target = g_.isVirtual(b) ? blocker(b) : b;
        if (target >= 0) {
          nextWaiter_[r] = state_[target];  // push r on the target's list
          state_[target] = r;
        }
        return;
      }
      const std::size_t n = unitSize(r);
      const std::int32_t first = g_.rankNode(r, head_[r]);
      for (std::size_t i = 0; i < n; ++i) {
        const auto node = first + static_cast<std::int32_t>(i);
        for (int w = state_[node]; w >= 0; w = nextWaiter_[w])
          work.push_back(w);
        state_[node] = kDone;
      }
      head_[r] += n;
    }
  }

  const Plan& p_;
  const OpGraph& g_;
  // Per node: kDone, or not done yet with the first rank parked on it (kNone: none); the next
  // parked ranks follow nextWaiter_. One array for both: one access per dependency check.
  static constexpr std::int32_t kNone = -1, kDone = -2;
  bool done(std::int32_t node) const { return state_[node] == kDone; }
  std::vector<std::int32_t> state_;
  std::vector<std::size_t> head_;
  std::vector<std::int32_t> nextWaiter_;  // per rank: the next rank parked on the same node
};

std::string deadlockMessage(const Plan& p, const OpGraph& g, const InOrderReplay& replay) {
  // Follow the wait chain from the first stuck rank until it repeats: that is the cycle.
  int start = -1;
  for (int r = 0; r < p.numRanks && start < 0; ++r)
    if (replay.headNode(r) >= 0) start = r;
  std::string text = "deadlock under in-order execution: ";
  std::vector<char> seen(p.numRanks, 0);
  int r = start;
  for (int hops = 0; hops < p.numRanks + 1 && r >= 0 && !seen[r]; ++hops) {
    seen[r] = 1;
    const auto head = replay.headNode(r);
    const auto waitFor = replay.blocker(head);
    if (hops) text += "; ";
    if (waitFor < 0) {
      text += "rank " + std::to_string(r) + " cannot start " + label(p, g, head);
      break;
    }
    const int q = g.rank[waitFor];
    const auto qHead = replay.headNode(q);
    text += "rank " + std::to_string(r) + " waits for " + label(p, g, waitFor) + " which rank " +
            std::to_string(q) + " schedules after " + label(p, g, qHead);
    r = q;
  }
  return text;
}

}  // namespace

Result<OpGraph> validatePlan(const Plan& plan) {
  auto graph = buildOpGraph(plan);
  if (!graph) return graph;
  PS_TRY(checkActivationMoves(plan));
  InOrderReplay replay(plan, *graph);
  if (!replay.run()) return Error{deadlockMessage(plan, *graph, replay)};
  return graph;
}

Result<Plan> repeatSteps(Plan&& oneStep, int steps, OptimizerSync sync) {
  if (steps <= 0) return Error{"--steps must be positive (got " + std::to_string(steps) + ")"};
  if (oneStep.steps != 1)
    return Error{"plan '" + oneStep.schedule + "' already covers " + std::to_string(oneStep.steps) +
                 " steps"};
  Plan out = std::move(oneStep);
  out.steps = steps;
  out.optimizerSync = sync;
  for (auto& program : out.programs) {
    if (steps == 1) {  // in place: drop any OPT, append the step's
      std::erase_if(program, [](const Action& a) { return a.kind == OpKind::OPT; });
      for (Action& a : program)
        a.step = 0;
      if (!out.forwardOnly) program.push_back(Action{OpKind::OPT, -1, -1, 0});
      continue;
    }
    const std::vector<Action> one = std::move(program);
    program = {};
    program.reserve((one.size() + 1) * static_cast<std::size_t>(steps));
    for (int k = 0; k < steps; ++k) {
      for (Action a : one) {
        if (a.kind == OpKind::OPT) continue;
        a.step = k;
        program.push_back(a);
      }
      if (!out.forwardOnly) program.push_back(Action{OpKind::OPT, -1, -1, k});
    }
  }
  const std::vector<ExtraEdge> edges = std::move(out.extraEdges);
  out.extraEdges = {};
  out.extraEdges.reserve(edges.size() * static_cast<std::size_t>(steps));
  for (int k = 0; k < steps; ++k)
    for (ExtraEdge e : edges) {
      e.before.step = e.after.step = k;
      out.extraEdges.push_back(e);
    }
  return out;
}

Result<Plan> repeatSteps(const Plan& oneStep, int steps, OptimizerSync sync) {
  return repeatSteps(Plan(oneStep), steps, sync);
}

}  // namespace ps::runtime
