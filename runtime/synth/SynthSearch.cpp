#include "runtime/synth/SynthSearch.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ps::runtime::synth {
namespace {

// True once the budget is spent (the clock is read every 16 passes).
bool spent(SearchBudget& b, int sinceBetter) {
  if (b.passes >= b.maxPasses || sinceBetter >= b.patience) return true;
  if ((b.passes & 15) != 0) return false;
  if (b.cancel && b.cancel->load()) return true;
  if (std::chrono::steady_clock::now() > b.deadline) {
    b.stoppedByClock = true;
    return true;
  }
  return false;
}

std::size_t below(SearchBudget& b, std::size_t n) {
  return static_cast<std::size_t>((*b.random)() % n);
}

// A position 1..8 places from i in a sequence of n (> 1), never i.
std::size_t nearby(SearchBudget& b, std::size_t i, std::size_t n) {
  const std::size_t d = 1 + below(b, 8);
  std::size_t j = ((*b.random)() & 1) != 0 && i >= d ? i - d : i + d;
  if (j >= n) j = i >= d ? i - d : n - 1;
  return j;
}

// What a search minimises: the step, then how early the ranks finish on average (a move that
// frees a rank earlier is a step towards a shorter step, where the step alone is flat).
double score(const ListPass& pass, int ranks) {
  return static_cast<double>(pass.makespan) +
         static_cast<double>(pass.endSum) / (16.0 * static_cast<double>(ranks));
}

}  // namespace

bool better(const ListPass& a, const ListPass& b) {
  if (a.makespan != b.makespan) return a.makespan < b.makespan;
  const auto peakA = *std::max_element(a.peakBytes.begin(), a.peakBytes.end());
  const auto peakB = *std::max_element(b.peakBytes.begin(), b.peakBytes.end());
  if (peakA != peakB) return peakA < peakB;
  return a.endSum < b.endSum;
}

namespace {

// Simulated annealing over a state (keys or an order): a move is kept when it scores no worse,
// or by chance exp(-worse / T) with T falling to 0 over the search's passes; the best state
// seen is what comes out. `evaluate(state, pass)` schedules a state, `mutate(state, pass)` moves
// one (given the state's own schedule).
template <class State, class Evaluate, class Mutate>
void anneal(const SynthProblem& p, SearchBudget& b, State& best, ListPass& bestPass,
            const Evaluate& evaluate, const Mutate& mutate) {
  const int ranks = p.numRanks();
  State current = best;
  ListPass currentPass = bestPass, pass;
  const int first = b.passes;
  const double horizon = std::max(1, b.maxPasses - first);
  const double t0 = 0.002 * static_cast<double>(bestPass.makespan);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  int sinceBetter = 0;
  while (!spent(b, sinceBetter)) {
    State candidate = current;
    mutate(candidate, currentPass);
    evaluate(candidate, pass);
    ++b.passes;
    ++sinceBetter;
    if (!pass.complete) continue;
    const double worse = score(pass, ranks) - score(currentPass, ranks);
    const double t = t0 * std::max(0.0, 1.0 - (b.passes - first) / horizon);
    if (worse > 0 && (t <= 0 || uniform(*b.random) >= std::exp(-worse / t))) continue;
    if (better(pass, bestPass)) {
      if (pass.makespan < bestPass.makespan) sinceBetter = 0;
      best = candidate;
      bestPass = pass;
    }
    std::swap(current, candidate);
    std::swap(currentPass, pass);
  }
}

}  // namespace

void improveKeys(const SynthProblem& p, SearchBudget& b, ListWorkspace& work, Keys& keys,
                 ListPass& best) {
  anneal(
      p, b, keys, best, [&](const Keys& k, ListPass& pass) { listSchedule(p, k, work, pass); },
      [&](Keys& k, const ListPass& pass) {
        const std::size_t swaps = 1 + below(b, 3);
        for (std::size_t n = 0; n < swaps; ++n) {
          const auto& order = pass.order[below(b, pass.order.size())];
          if (order.size() < 2) continue;
          const std::size_t i = below(b, order.size());
          std::swap(k[order[i]], k[order[nearby(b, i, order.size())]]);
        }
      });
}

void improveOrder(const SynthProblem& p, SearchBudget& b, ListWorkspace& work, Order& order,
                  ListPass& best) {
  anneal(
      p, b, order, best, [&](const Order& o, ListPass& pass) { replayOrder(p, o, work, pass); },
      [&](Order& o, const ListPass&) {
        auto& ops = o[below(b, o.size())];
        if (ops.size() < 2) return;
        const std::size_t i = below(b, ops.size());
        const std::size_t j = nearby(b, i, ops.size());
        const std::int32_t moved = ops[i];
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(i));
        ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(j), moved);
      });
}

Order orderOfPlan(const SynthProblem& p, const Plan& plan) {
  std::map<std::tuple<OpKind, int, int>, std::int32_t> idOf;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Action& a = p.ops[i].action;
    idOf[{a.kind, a.stage, a.microbatch}] = static_cast<std::int32_t>(i);
  }
  Order order(static_cast<std::size_t>(p.numRanks()));
  std::size_t found = 0;
  if (plan.numRanks != p.numRanks()) return {};
  for (int r = 0; r < plan.numRanks; ++r)
    for (const Action& a : plan.programs[r]) {
      const bool synthKind =
          a.kind == OpKind::F || a.kind == OpKind::B || a.kind == OpKind::I || a.kind == OpKind::W;
      if (a.step != 0 || !synthKind) continue;
      const auto it = idOf.find({a.kind, a.stage, a.microbatch});
      if (it == idOf.end() || p.ops[it->second].rank != r) return {};
      order[r].push_back(it->second);
      ++found;
    }
  return found == p.size() ? order : Order{};
}

}  // namespace ps::runtime::synth
