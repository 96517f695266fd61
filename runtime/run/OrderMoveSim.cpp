#include "runtime/run/OrderMoveSim.h"

#include <algorithm>

#include "runtime/plan/Validator.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

bool sameOp(const Action& a, const Action& b) {
  return a.kind == b.kind && a.stage == b.stage && a.microbatch == b.microbatch && a.step == b.step;
}

}  // namespace

OrderMoveActions orderMoveActions(const trace::RunTrace& run, const trace::OpRef& move,
                                  const trace::OpRef& before) {
  auto actionOf = [&run](const trace::OpRef& op) {
    const trace::OpColumns& c = run.ranks[op.rank].lane(op.lane);
    Action a;
    a.kind = c.kind[op.index];
    a.stage = c.stage[op.index];
    a.microbatch = c.microbatch[op.index];
    a.step = c.step[op.index];
    return a;
  };
  return {move.rank, actionOf(move), actionOf(before)};
}

bool applyOrderMove(Plan& plan, const OrderMoveActions& m) {
  if (m.rank < 0 || m.rank >= static_cast<int>(plan.programs.size())) return false;
  auto& program = plan.programs[static_cast<std::size_t>(m.rank)];
  const auto from = std::find_if(program.begin(), program.end(),
                                 [&](const Action& a) { return sameOp(a, m.move); });
  if (from == program.end() || from->overlapNext) return false;  // a unit's half stays put
  if (std::none_of(program.begin(), program.end(),
                   [&](const Action& a) { return sameOp(a, m.before); }))
    return false;
  const Action moved = *from;
  program.erase(from);
  program.insert(std::find_if(program.begin(), program.end(),
                              [&](const Action& a) { return sameOp(a, m.before); }),
                 moved);
  return true;
}

Result<std::vector<std::optional<std::int64_t>>> resimulateOrderMoves(
    const BuiltPlan& built, const std::vector<OrderMoveActions>& moves,
    const std::atomic<bool>* cancel) {
  auto base = simulate(built.plan, built.graph, built.cost, cancel);
  if (!base) return Error{"order moves: " + base.error()};
  std::vector<std::optional<std::int64_t>> gains;
  for (const OrderMoveActions& m : moves) {
    Plan plan = built.plan;
    std::optional<std::int64_t> gain;
    if (applyOrderMove(plan, m))
      if (auto graph = validatePlan(plan))
        if (auto sim = simulate(plan, *graph, built.cost, cancel))
          gain = base->makespan - sim->makespan;
    gains.push_back(gain);
  }
  return gains;
}

}  // namespace ps::runtime
