#include "runtime/schedules/BalanceActivations.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/plan/Validator.h"
#include "runtime/sim/MemoryTracker.h"
#include "runtime/sim/OpCosts.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

// One rank's activation bytes walked through its program in order, with some F moved away.
class ProgramWalk {
 public:
  ProgramWalk(const Plan& plan, const std::vector<std::int64_t>& act, int rank)
      : plan_(plan), act_(act), program_(plan.programs[rank]) {}

  struct Outcome {
    std::int64_t keptPeak = 0;  // on the rank itself, F and RELOAD transients included
    std::int64_t heldPeak = 0;  // on the holder, at most at once
    std::vector<ActivationMove> moves;
  };

  // cap < 0: nothing moves.
  Outcome run(std::int64_t cap, int holder) const {
    Outcome out;
    std::vector<char> moved(cellCount(), 0), decided(cellCount(), 0);
    // `leaving`: a moved F's bytes, still here while its OFFLOAD runs beside the next op.
    std::int64_t kept = 0, held = 0, leaving = 0;
    for (std::size_t i = 0; i < program_.size(); ++i) {
      const Action& a = program_[i];
      // The RELOAD of the next op's activations starts with this op.
      if (i + 1 < program_.size() && isFirstBackward(program_[i + 1]) &&
          moved[cell(program_[i + 1])]) {
        kept += bytes(program_[i + 1]);
        held -= bytes(program_[i + 1]);
      }
      std::int64_t leavesNext = 0;
      if (a.kind == OpKind::F) {
        const std::int64_t b = bytes(a);
        out.keptPeak = std::max(out.keptPeak, kept + leaving + b);
        const std::size_t c = cell(a);
        if (!decided[c]) {
          decided[c] = 1;
          moved[c] = cap >= 0 && kept + b > cap && movable(i);
          if (moved[c]) out.moves.push_back({a.stage, a.microbatch, holder});
        }
        if (moved[c]) {
          held += b;
          out.heldPeak = std::max(out.heldPeak, held);
          leavesNext = b;
        } else {
          kept += b;
        }
      } else if (releases(a)) {
        kept -= bytes(a);
      }
      out.keptPeak = std::max(out.keptPeak, kept + leaving);
      leaving = leavesNext;
    }
    return out;
  }

 private:
  std::size_t cellCount() const {
    return static_cast<std::size_t>(plan_.numStages) * plan_.numMicrobatches();
  }
  std::size_t cell(const Action& a) const {
    return static_cast<std::size_t>(a.stage) * plan_.numMicrobatches() + a.microbatch;
  }
  std::int64_t bytes(const Action& a) const {
    return static_cast<std::int64_t>(static_cast<double>(act_[a.stage]) *
                                     plan_.microbatches[a.microbatch].costScale);
  }
  bool isFirstBackward(const Action& a) const { return a.kind == OpKind::B || a.kind == OpKind::I; }
  bool releases(const Action& a) const {
    return a.kind == (plan_.splitBackward ? OpKind::W : OpKind::B) ||
           (a.kind == OpKind::B && plan_.splitBackward);
  }
  // An F that is not half of an overlapped pair and whose backward does not follow it at once.
  bool movable(std::size_t i) const {
    const Action& f = program_[i];
    if (f.overlapNext || (i > 0 && program_[i - 1].overlapNext)) return false;
    if (i + 1 < program_.size()) {
      const Action& next = program_[i + 1];
      if (isFirstBackward(next) && next.stage == f.stage && next.microbatch == f.microbatch)
        return false;
    }
    return true;
  }

  const Plan& plan_;
  const std::vector<std::int64_t>& act_;
  const std::vector<Action>& program_;
};

// Copies over a link of finite bandwidth take time the walk does not see: an OFFLOAD keeps its
// bytes on the owner until it ends, and a RELOAD that outlasts the op before the backward delays
// it. So each candidate move set of the pair (one per cap, the moves already chosen for earlier
// pairs kept) is simulated, and the one with the lowest larger peak of the pair that keeps the
// step time wins; none when no candidate lowers it. (Before, at 25 Gb/s the moves raised ranks
// 6-7 to 56 MiB while rank 0 stayed at 72.)
Result<std::vector<ActivationMove>> chooseWithLinkTime(
    Plan& plan, const CostModel& cost, std::pair<int, int> pair,
    const std::vector<std::vector<ActivationMove>>& candidates) {
  const std::vector<ActivationMove> kept = plan.activationMoves;
  struct Measure {
    std::int64_t larger = 0, makespan = 0;
  };
  auto measure = [&](const std::vector<ActivationMove>& extra) -> Result<Measure> {
    plan.activationMoves = kept;
    plan.activationMoves.insert(plan.activationMoves.end(), extra.begin(), extra.end());
    auto graph = validatePlan(plan);
    PS_TRY(graph);
    auto result = simulate(plan, *graph, cost);
    PS_TRY(result);
    return Measure{std::max(result->peakMemory[pair.first], result->peakMemory[pair.second]),
                   result->makespan};
  };
  auto unmoved = measure({});
  PS_TRY(unmoved);
  // The step may move by rounding only (a part in 10^4), not by a copy that waits.
  const std::int64_t slowest = unmoved->makespan + unmoved->makespan / 10000;
  std::int64_t best = unmoved->larger;
  std::vector<ActivationMove> chosen;
  for (const auto& candidate : candidates) {
    auto m = measure(candidate);
    PS_TRY(m);
    if (m->makespan <= slowest && m->larger < best) {
      best = m->larger;
      chosen = candidate;
    }
  }
  plan.activationMoves = kept;
  return chosen;
}

}  // namespace

Status balanceActivations(Plan& plan, const CostModel& cost) {
  const std::string flag = "--balance-activations: ";
  if (plan.forwardOnly) return Error{flag + "a forward-only plan keeps no activations to move"};
  if (plan.recompute)
    return Error{flag +
                 "BPipe moves whole activations instead of recomputing them (drop "
                 "--recompute)"};
  std::vector<std::int64_t> act(static_cast<std::size_t>(plan.numStages));
  for (int s = 0; s < plan.numStages; ++s)
    act[s] = activationBytes(plan, cost, s);
  const MemoryTracker base(plan, cost);
  plan.activationMoves.clear();
  const bool linksFree = sim::allLinksFree(cost);
  const int P = plan.numRanks;
  for (int r = 0; r < P / 2; ++r) {
    const int q = P - 1 - r;
    const ProgramWalk walkR(plan, act, r), walkQ(plan, act, q);
    const std::int64_t peakR = base.baseBytes(r) + walkR.run(-1, q).keptPeak;
    const std::int64_t peakQ = base.baseBytes(q) + walkQ.run(-1, r).keptPeak;
    const bool rHeavier = peakR >= peakQ;
    const int heavy = rHeavier ? r : q, light = rHeavier ? q : r;
    const ProgramWalk& walk = rHeavier ? walkR : walkQ;
    const std::int64_t heavyPeak = std::max(peakR, peakQ), lightPeak = std::min(peakR, peakQ);
    const std::int64_t activationPeak = heavyPeak - base.baseBytes(heavy);
    // Caps from the unmoved peak down to nothing; the first of the best (fewest moves) wins.
    constexpr int kCaps = 32;
    std::int64_t best = heavyPeak;
    std::vector<ActivationMove> chosen;
    std::vector<std::vector<ActivationMove>> candidates;
    for (int i = kCaps - 1; i >= 0; --i) {
      const auto outcome = walk.run(activationPeak * i / kCaps, light);
      if (!outcome.moves.empty() &&
          std::find(candidates.begin(), candidates.end(), outcome.moves) == candidates.end())
        candidates.push_back(outcome.moves);
      const std::int64_t larger =
          std::max(base.baseBytes(heavy) + outcome.keptPeak, lightPeak + outcome.heldPeak);
      if (larger < best) {
        best = larger;
        chosen = outcome.moves;
      }
    }
    if (!linksFree) {
      auto timed = chooseWithLinkTime(plan, cost, {heavy, light}, candidates);
      PS_TRY(timed);
      chosen = std::move(*timed);
    }
    plan.activationMoves.insert(plan.activationMoves.end(), chosen.begin(), chosen.end());
  }
  return {};
}

}  // namespace ps::runtime
