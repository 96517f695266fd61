#include "runtime/fit/ScheduleMatch.h"

#include <algorithm>
#include <limits>

#include "runtime/plan/TorchCsv.h"
#include "runtime/schedules/Schedule.h"

namespace ps::runtime::fit {
namespace {

bool comparable(trace::OpKind k) {
  return k == trace::OpKind::F || k == trace::OpKind::B || k == trace::OpKind::I ||
         k == trace::OpKind::W;
}

// Actions of `generated` (step 0, comparable kinds) that differ from the recorded ones, position
// by position, plus the length difference; SIZE_MAX when the placement differs.
std::size_t differences(const Plan& generated, const RecordedProgram& recorded) {
  if (generated.numRanks != recorded.ranks || generated.numStages != recorded.stages ||
      generated.numReplicas() != 1)
    return SIZE_MAX;
  for (int s = 0; s < recorded.stages; ++s)
    if (generated.placement[0][static_cast<std::size_t>(s)].rank !=
        recorded.rankOfStage[static_cast<std::size_t>(s)])
      return SIZE_MAX;
  std::size_t differing = 0;
  for (int r = 0; r < recorded.ranks; ++r) {
    std::vector<Action> order;
    for (const Action& a : generated.programs[static_cast<std::size_t>(r)])
      if (a.step == 0 && comparable(a.kind)) order.push_back(a);
    const auto& mine = recorded.programs[static_cast<std::size_t>(r)];
    const std::size_t n = std::min(order.size(), mine.size());
    for (std::size_t i = 0; i < n; ++i)
      if (order[i].kind != mine[i].kind || order[i].stage != mine[i].stage ||
          order[i].microbatch != mine[i].microbatch)
        ++differing;
    differing += std::max(order.size(), mine.size()) - n;
  }
  return differing;
}

}  // namespace

ScheduleMatch matchSchedule(const RecordedProgram& program) {
  ScheduleMatch match;
  for (const auto& p : program.programs)
    match.actions += p.size();
  std::size_t best = SIZE_MAX;
  for (const ScheduleInfo& info : scheduleRegistry()) {
    ScheduleParams params;
    params.ranks = program.ranks;
    params.microbatches = program.microbatches;
    params.chunks = program.chunks;
    params.steps = 1;
    auto plan = info.generate(params);
    if (!plan) continue;
    const std::size_t d = differences(*plan, program);
    if (d == 0) {
      match.name = info.name;
      match.nearest.clear();
      match.differing = 0;
      return match;
    }
    if (d < best) {
      best = d;
      match.nearest = info.name;
      match.differing = d;
    }
  }
  return match;
}

std::string recordedScheduleCsv(const RecordedProgram& program) {
  return writeTorchCsvComms(program.programs);
}

}  // namespace ps::runtime::fit
