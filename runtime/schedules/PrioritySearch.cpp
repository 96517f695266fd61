#include "runtime/schedules/PrioritySearch.h"

#include <algorithm>
#include <random>
#include <vector>

namespace ps::runtime::sched {
namespace {

// Keys are spaced this far apart so that a moved key lands between two others.
constexpr std::int64_t kSpacing = 1024;

int kindSlot(OpKind kind) {
  return kind == OpKind::F ? 0 : kind == OpKind::W ? 2 : 1;
}

std::size_t keyIndex(int microbatches, const Action& a) {
  return (static_cast<std::size_t>(a.stage) * microbatches + a.microbatch) * 3 + kindSlot(a.kind);
}

std::int64_t opCount(const Plan& plan) {
  return static_cast<std::int64_t>(plan.numStages) * plan.numMicrobatches() *
         (plan.splitBackward ? 3 : 2);
}

}  // namespace

Result<ListScheduleResult> searchListSchedule(const Plan& skeleton, const UnitCosts& cost,
                                              const ListPriority& basePriority,
                                              const PrioritySearchOptions& options) {
  auto best = listSchedule(skeleton, cost, basePriority);
  PS_TRY(best);
  const std::int64_t ops = std::max<std::int64_t>(1, opCount(skeleton));
  const int passes =
      static_cast<int>(std::min<std::int64_t>(options.maxPasses, options.opBudget / ops));
  if (passes < 1) return best;

  // First keys: the greedy schedule's order (start time, then rank), which the keyed policy
  // reproduces.
  const int m = skeleton.numMicrobatches();
  std::vector<std::int64_t> keys(static_cast<std::size_t>(skeleton.numStages) * m * 3, 0);
  std::vector<std::size_t> used;
  {
    std::vector<std::tuple<std::int64_t, int, std::size_t>> order;
    for (std::size_t r = 0; r < best->programs.size(); ++r)
      for (std::size_t i = 0; i < best->programs[r].size(); ++i)
        order.emplace_back(best->start[r][i], static_cast<int>(r),
                           keyIndex(m, best->programs[r][i]));
    std::sort(order.begin(), order.end());
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      keys[std::get<2>(order[pos])] = static_cast<std::int64_t>(pos) * kSpacing;
      used.push_back(std::get<2>(order[pos]));
    }
  }
  const ListPriority keyed = [&](int rank, const Action& a,
                                 const RankLoad& load) -> std::optional<std::int64_t> {
    if (!basePriority(rank, a, load)) return std::nullopt;  // the rule's memory bound
    return keys[keyIndex(m, a)];
  };

  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick(0, used.size() - 1);
  std::uniform_int_distribution<int> moves(1, 3), shift(-12, 12);
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<std::pair<std::size_t, std::int64_t>> undo;
    for (int n = moves(rng); n > 0; --n) {
      const std::size_t k = used[pick(rng)];
      undo.emplace_back(k, keys[k]);
      keys[k] += shift(rng) * kSpacing + shift(rng);
    }
    auto candidate = listSchedule(skeleton, cost, keyed);
    if (candidate.ok() && candidate->makespan <= best->makespan) {
      best = std::move(candidate);
      continue;
    }
    for (auto it = undo.rbegin(); it != undo.rend(); ++it)
      keys[it->first] = it->second;
  }
  return best;
}

}  // namespace ps::runtime::sched
