#include "runtime/run/OrderMoveSim.h"

#include <algorithm>

#include "runtime/plan/Validator.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

bool sameOp(const Action& a, const Action& b) {
  return a.kind == b.kind && a.stage == b.stage && a.microbatch == b.microbatch && a.step == b.step;
}

// The rank's program with `m.move` just before `m.before`; false when either is missing.
bool applyMove(Plan& plan, const OrderMoveActions& m) {
  if (m.rank < 0 || m.rank >= static_cast<int>(plan.programs.size())) return false;
  auto& program = plan.programs[static_cast<std::size_t>(m.rank)];
  const auto from = std::find_if(program.begin(), program.end(),
                                 [&](const Action& a) { return sameOp(a, m.move); });
  if (from == program.end() || from->overlapNext) return false;  // a unit's half stays put
  const Action moved = *from;
  program.erase(from);
  const auto to = std::find_if(program.begin(), program.end(),
                               [&](const Action& a) { return sameOp(a, m.before); });
  if (to == program.end()) return false;
  program.insert(to, moved);
  return true;
}

}  // namespace

Result<std::vector<std::optional<std::int64_t>>> resimulateOrderMoves(
    const BuiltPlan& built, const std::vector<OrderMoveActions>& moves,
    const std::atomic<bool>* cancel) {
  auto base = simulate(built.plan, built.graph, built.cost, cancel);
  if (!base) return Error{"order moves: " + base.error()};
  std::vector<std::optional<std::int64_t>> gains;
  for (const OrderMoveActions& m : moves) {
    Plan plan = built.plan;
    std::optional<std::int64_t> gain;
    if (applyMove(plan, m))
      if (auto graph = validatePlan(plan))
        if (auto sim = simulate(plan, *graph, built.cost, cancel))
          gain = base->makespan - sim->makespan;
    gains.push_back(gain);
  }
  return gains;
}

}  // namespace ps::runtime
