#include "runtime/schedules/ListScheduler.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <string>

namespace ps::runtime::sched {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// Queue kinds per stage: F, the first backward (B or I), W.
enum Queue { kF = 0, kBack = 1, kW = 2, kQueues = 3 };

struct State {
  const Plan& plan;
  int m;
  std::vector<std::vector<std::int64_t>> end[kQueues];  // [queue][stage][mb] finish time
  std::vector<std::vector<int>> preds, succs;           // per stage (Plan builds them anew)

  explicit State(const Plan& p) : plan(p), m(p.numMicrobatches()) {
    for (auto& e : end)
      e.assign(p.numStages, std::vector<std::int64_t>(m, kNever));
    for (int s = 0; s < p.numStages; ++s) {
      preds.push_back(p.predecessors(s));
      succs.push_back(p.successors(s));
    }
  }

  bool ready(int q, int s, int k, std::int64_t t) const {
    if (q == kF) {
      for (int pr : preds[s])
        if (end[kF][pr][k] > t) return false;
      return true;
    }
    if (q == kW) return end[kBack][s][k] <= t;
    if (end[kF][s][k] > t) return false;
    for (int su : succs[s])
      if (end[kBack][su][k] > t) return false;
    return true;
  }
};

// The ops one rank runs for one (replica, stage): its micro-batches in order, per queue.
struct Lane {
  int stage = 0;
  std::vector<int> mbs;
  int next[kQueues] = {0, 0, 0};
};

}  // namespace

Result<ListScheduleResult> listSchedule(const Plan& plan, const UnitCosts& cost,
                                        const ListPriority& priority, int forwardGroup) {
  if (forwardGroup < 1) forwardGroup = 1;
  const int ranks = plan.numRanks, m = plan.numMicrobatches(), S = plan.numStages;
  const bool split = plan.splitBackward;
  State st(plan);
  // The (replica, stage) lanes each rank holds; a micro-batch's replica picks its lane.
  std::vector<std::vector<Lane>> lanes(ranks);
  for (int rep = 0; rep < plan.numReplicas(); ++rep)
    for (int s = 0; s < S; ++s) {
      Lane lane;
      lane.stage = s;
      for (int k = 0; k < m; ++k)
        if (plan.replicaOf(k) == rep) lane.mbs.push_back(k);
      if (!lane.mbs.empty()) lanes[plan.placement[rep][s].rank].push_back(std::move(lane));
    }
  ListScheduleResult out;
  out.programs.assign(ranks, {});
  out.start.assign(ranks, {});
  std::vector<RankLoad> load(ranks);
  std::vector<std::int64_t> busyUntil(ranks, 0);
  std::int64_t remaining = static_cast<std::int64_t>(S) * m * (split ? 3 : 2);
  const OpKind backKind = split ? OpKind::I : OpKind::B;
  const int queues = split ? 3 : 2;
  std::int64_t t = 0;
  // Forward groups: the next `forwardGroup` forwards of a lane (fewer at its end), all ready.
  auto groupSize = [&](const Lane& lane) {
    return std::min(forwardGroup, static_cast<int>(lane.mbs.size()) - lane.next[kF]);
  };
  auto groupReady = [&](const Lane& lane, std::int64_t now) {
    const int n = groupSize(lane);
    for (int g = 1; g < n; ++g)
      if (!st.ready(kF, lane.stage, lane.mbs[lane.next[kF] + g], now)) return false;
    return true;
  };

  // A free rank is looked at again only once an op that can change its answer has ended: one of
  // its own (its load) or one of a neighbouring stage (readiness); the policy sees nothing else.
  // Rescanning every free rank at every step made zb-v at m = 1 quadratic in p (p = 437 took
  // over a minute in the fuzzer).
  std::vector<std::vector<int>> ranksOfStage(S);
  for (int rep = 0; rep < plan.numReplicas(); ++rep)
    for (int s = 0; s < S; ++s)
      ranksOfStage[s].push_back(plan.placement[rep][s].rank);
  std::vector<char> dirty(ranks, 1);
  using Ending = std::pair<std::int64_t, int>;  // (finish time, stage)
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ending;
  auto markStage = [&](int s) {
    for (int r : ranksOfStage[s])
      dirty[r] = 1;
  };

  while (remaining > 0) {
    while (!ending.empty() && ending.top().first <= t) {
      const int s = ending.top().second;
      ending.pop();
      markStage(s);
      for (int pr : st.preds[s])
        markStage(pr);
      for (int su : st.succs[s])
        markStage(su);
    }
    for (int r = 0; r < ranks; ++r) {
      if (busyUntil[r] > t || !dirty[r]) continue;
      dirty[r] = 0;
      std::optional<std::int64_t> best;
      int bestQ = -1, bestL = -1;
      for (int li = 0; li < static_cast<int>(lanes[r].size()); ++li) {
        const Lane& lane = lanes[r][li];
        for (int q = 0; q < queues; ++q) {
          if (lane.next[q] >= static_cast<int>(lane.mbs.size())) continue;
          const int k = lane.mbs[lane.next[q]];
          if (!st.ready(q, lane.stage, k, t)) continue;
          if (q == kF && !groupReady(lane, t)) continue;
          Action a;
          a.kind = q == kF ? OpKind::F : q == kBack ? backKind : OpKind::W;
          a.stage = lane.stage;
          a.microbatch = k;
          auto pr = priority(r, a, load[r]);
          if (!pr) continue;
          // Ties: lower priority value, then queue order (F, back, W), then the first lane.
          if (!best || *pr < *best || (*pr == *best && q < bestQ)) {
            best = pr;
            bestQ = q;
            bestL = li;
          }
        }
      }
      if (!best) continue;
      Lane& lane = lanes[r][bestL];
      const int count = bestQ == kF ? groupSize(lane) : 1;
      std::int64_t at = t;
      for (int g = 0; g < count; ++g) {
        const int bestS = lane.stage;
        const int k = lane.mbs[lane.next[bestQ]++];
        Action a;
        a.kind = bestQ == kF ? OpKind::F : bestQ == kBack ? backKind : OpKind::W;
        a.stage = bestS;
        a.microbatch = k;
        const int dur = bestQ == kF ? cost.f : bestQ == kW ? cost.w : (split ? cost.i : cost.b);
        st.end[bestQ][bestS][k] = at + dur;
        ending.emplace(at + dur, bestS);
        out.programs[r].push_back(a);
        out.start[r].push_back(at);
        at += dur;
        --remaining;
        auto& l = load[r];
        if (bestQ == kF) {
          ++l.awaitingBackward;
          ++l.holding;
          ++l.forwardsStarted;
        } else if (bestQ == kBack) {
          --l.awaitingBackward;
          if (split)
            ++l.pendingW;
          else
            --l.holding;
        } else {
          --l.pendingW;
          --l.holding;
        }
      }
      busyUntil[r] = at;
      out.makespan = std::max(out.makespan, at);
    }
    // Advance to the next finish time; nothing can become ready in between.
    std::int64_t nextT = kNever;
    for (int r = 0; r < ranks; ++r)
      if (busyUntil[r] > t) nextT = std::min(nextT, busyUntil[r]);
    if (nextT == kNever) {
      if (remaining == 0) break;
      return Error{plan.schedule + ": list scheduler stalled at time " + std::to_string(t) +
                   " with " + std::to_string(remaining) + " ops left (policy holds back every op)"};
    }
    t = nextT;
  }
  return out;
}

}  // namespace ps::runtime::sched
