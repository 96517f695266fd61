#include "runtime/plan/Validator.h"

#include <string>

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
class InOrderReplay {
 public:
  InOrderReplay(const Plan& p, const OpGraph& g)
      : p_(p), g_(g), done_(g.size(), 0), head_(p.numRanks, 0), waiters_(g.size()) {}

  // True when every program ran to the end.
  bool run() {
    std::vector<int> work;
    for (int r = 0; r < p_.numRanks; ++r)
      work.push_back(r);
    while (!work.empty()) {
      const int r = work.back();
      work.pop_back();
      advance(r, work);
    }
    for (int r = 0; r < p_.numRanks; ++r)
      if (head_[r] < g_.rankNodes[r].size()) return false;
    return true;
  }

  // The first dependency of `node` that is not done, looking through barrier nodes; -1 if none.
  std::int32_t blocker(std::int32_t node) const {
    for (auto d : g_.depsOf(node)) {
      if (done_[d]) continue;
      if (g_.isVirtual(d)) {
        const auto inner = blocker(d);
        return inner >= 0 ? inner : d;
      }
      return d;
    }
    return -1;
  }
  std::int32_t headNode(int r) const {
    return head_[r] < g_.rankNodes[r].size() ? g_.rankNodes[r][head_[r]] : -1;
  }

 private:
  // The unit starting at the head: one action, or two when the first overlaps the next.
  std::size_t unitSize(int r) const {
    const auto& nodes = g_.rankNodes[r];
    const std::size_t h = head_[r];
    return (g_.actions[nodes[h]].overlapNext && h + 1 < nodes.size()) ? 2 : 1;
  }

  std::int32_t unitBlocker(int r) {
    const auto& nodes = g_.rankNodes[r];
    const std::size_t n = unitSize(r);
    for (std::size_t i = 0; i < n; ++i) {
      const auto node = nodes[head_[r] + i];
      for (auto d : g_.depsOf(node)) {
        if (done_[d]) continue;
        if (n == 2 && d == nodes[head_[r]]) continue;  // the overlapped partner
        if (g_.isVirtual(d) && resolveVirtual(d)) continue;
        return d;
      }
    }
    return -1;
  }

  bool resolveVirtual(std::int32_t v) {
    for (auto d : g_.depsOf(v))
      if (!done_[d]) return false;
    done_[v] = 1;
    return true;
  }

  void advance(int r, std::vector<int>& work) {
    const auto& nodes = g_.rankNodes[r];
    while (head_[r] < nodes.size()) {
      const auto b = unitBlocker(r);
      if (b >= 0) {
        // Park on the real op that blocks (barriers park on one of their own blockers).
        const auto target = g_.isVirtual(b) ? blocker(b) : b;
        if (target >= 0) waiters_[target].push_back(r);
        return;
      }
      const std::size_t n = unitSize(r);
      for (std::size_t i = 0; i < n; ++i) {
        const auto node = nodes[head_[r] + i];
        done_[node] = 1;
        for (int w : waiters_[node])
          work.push_back(w);
        waiters_[node].clear();
      }
      head_[r] += n;
    }
  }

  const Plan& p_;
  const OpGraph& g_;
  std::vector<char> done_;
  std::vector<std::size_t> head_;
  std::vector<std::vector<int>> waiters_;
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
  InOrderReplay replay(plan, *graph);
  if (!replay.run()) return Error{deadlockMessage(plan, *graph, replay)};
  return graph;
}

Result<Plan> repeatSteps(const Plan& oneStep, int steps, OptimizerSync sync) {
  if (steps <= 0) return Error{"--steps must be positive (got " + std::to_string(steps) + ")"};
  if (oneStep.steps != 1)
    return Error{"plan '" + oneStep.schedule + "' already covers " + std::to_string(oneStep.steps) +
                 " steps"};
  Plan out = oneStep;
  out.steps = steps;
  out.optimizerSync = sync;
  out.extraEdges.clear();
  for (int r = 0; r < oneStep.numRanks; ++r) {
    auto& program = out.programs[r];
    program.clear();
    program.reserve((oneStep.programs[r].size() + 1) * steps);
    for (int k = 0; k < steps; ++k) {
      for (Action a : oneStep.programs[r]) {
        if (a.kind == OpKind::OPT) continue;
        a.step = k;
        program.push_back(a);
      }
      program.push_back(Action{OpKind::OPT, -1, -1, k});
    }
  }
  for (int k = 0; k < steps; ++k)
    for (ExtraEdge e : oneStep.extraEdges) {
      e.before.step = e.after.step = k;
      out.extraEdges.push_back(e);
    }
  return out;
}

}  // namespace ps::runtime
