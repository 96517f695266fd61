#include "runtime/schedules/FillFrozenWork.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "runtime/plan/Validator.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

struct Insertion {
  int rank = 0;
  std::size_t position = 0;  // before the program's action at this index
  Action fill;
};

Action fillOf(int microbatch, int step, int ahead) {
  Action a;
  a.kind = OpKind::FILL;
  a.stage = 0;
  a.microbatch = microbatch;
  a.step = step;
  a.ahead = static_cast<std::int8_t>(ahead);
  return a;
}

// The index of the first action of `step` (or later) in a synchronous program.
std::size_t stepBegin(const std::vector<Action>& program, int step) {
  return static_cast<std::size_t>(std::find_if(program.begin(), program.end(),
                                               [step](const Action& a) { return a.step >= step; }) -
                                  program.begin());
}

void apply(Plan& plan, std::vector<Insertion> insertions) {
  std::stable_sort(insertions.begin(), insertions.end(),
                   [](const Insertion& a, const Insertion& b) {
                     return a.rank != b.rank ? a.rank < b.rank : a.position < b.position;
                   });
  auto next = insertions.begin();
  for (int r = 0; r < plan.numRanks; ++r) {
    const std::vector<Action> old = std::move(plan.programs[r]);
    std::vector<Action>& out = plan.programs[r];
    out.clear();
    out.reserve(old.size() + insertions.size());
    for (std::size_t i = 0; i <= old.size(); ++i) {
      for (; next != insertions.end() && next->rank == r && next->position == i; ++next)
        out.push_back(next->fill);
      if (i < old.size()) out.push_back(old[i]);
    }
  }
}

// Step `step`'s FILLs before its pipeline, on the ranks given (m's rank by default m mod P).
// Each rank's load is int64 ns: frozen work passes 2^31 ns (2.1 s) on a rank easily (issue 30,
// item 8: an int wrapped there, and the rank then looked idle and took every further FILL).
void placeBefore(const Plan& plan, int step, const std::vector<int>& micro,
                 std::vector<std::int64_t> load, const CostModel& cost,
                 std::vector<Insertion>& out) {
  for (int m : micro) {
    const Action fill = fillOf(m, step, 0);
    // The rank whose FILLs of this step end first.
    int best = 0;
    for (int r = 1; r < plan.numRanks; ++r)
      if (load[r] < load[best]) best = r;
    // Saturating: a slow rank's FILL may take up to 1e18 ns (--frozen-us 1e9 at speed 1e-6);
    // the simulator refuses such a plan with its numbers, this only must not wrap first.
    const std::int64_t d = opDurationNs(plan, cost, fill, best);
    load[best] = d > std::numeric_limits<std::int64_t>::max() - load[best]
                     ? std::numeric_limits<std::int64_t>::max()
                     : load[best] + d;
    out.push_back({best, stepBegin(plan.programs[best], step), fill});
  }
}

struct Gap {
  std::int64_t start = 0, end = 0;
  int rank = 0;
  std::size_t position = 0;
};

// Idle gaps of `step` on every rank, from a simulation of the plan as it is: before each of the
// step's actions, from the end of the rank's previous one (or 0) to its start.
Result<std::vector<Gap>> gapsOf(const Plan& plan, const CostModel& cost, int step) {
  auto graph = validatePlan(plan);
  if (!graph) return std::move(graph).takeError();
  auto sim = simulate(plan, *graph, cost);
  if (!sim) return std::move(sim).takeError();
  // Per rank, its program's records in program order (each rank's ops are placed in order); a
  // replicated plan's OPT record starts after its AR, which the rank's stream ran first.
  std::vector<std::vector<const SimRecord*>> ofRank(static_cast<std::size_t>(plan.numRanks));
  std::map<std::pair<int, int>, std::int64_t> reduceStart;
  for (const SimRecord& r : sim->records) {
    if (r.kind == OpKind::AR) reduceStart[{r.rank, r.step}] = r.start_ns;
    if (trace::isCompute(r.kind)) ofRank[static_cast<std::size_t>(r.rank)].push_back(&r);
  }
  std::vector<Gap> gaps;
  for (int r = 0; r < plan.numRanks; ++r) {
    const auto& program = plan.programs[r];
    const auto& records = ofRank[static_cast<std::size_t>(r)];
    if (records.size() != program.size())
      return Error{"--fill bubbles: rank " + std::to_string(r) +
                   "'s simulated ops do not follow its program"};
    std::int64_t previousEnd = 0;
    for (std::size_t i = 0; i < program.size(); ++i) {
      std::int64_t start = records[i]->start_ns;
      if (program[i].kind == OpKind::OPT)
        if (auto it = reduceStart.find({r, program[i].step}); it != reduceStart.end())
          start = it->second;
      const bool splitsPair = i > 0 && program[i - 1].overlapNext;
      if (program[i].step == step && start > previousEnd && !splitsPair)
        gaps.push_back({previousEnd, start, r, i});
      previousEnd = std::max(previousEnd, records[i]->end_ns);
    }
  }
  std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) {
    return a.start != b.start ? a.start < b.start : a.rank < b.rank;
  });
  return gaps;
}

}  // namespace

Status fillFrozenWork(Plan& plan, const CostModel& cost, FillPlacement placement) {
  if (plan.versioning != WeightVersioning::Synchronous)
    return Error{"--frozen-us: " + plan.schedule +
                 " is asynchronous (its steps interleave); frozen work fills synchronous "
                 "schedules' bubbles"};
  if (!(cost.frozenFwdNs > 0)) return Error{"--frozen-us: give the frozen forward's time (> 0)"};
  std::vector<int> all(static_cast<std::size_t>(plan.numMicrobatches()));
  for (int m = 0; m < plan.numMicrobatches(); ++m)
    all[m] = m;
  const std::vector<std::int64_t> idle(static_cast<std::size_t>(plan.numRanks), 0);
  std::vector<Insertion> insertions;
  if (placement == FillPlacement::Before) {
    for (int k = 0; k < plan.steps; ++k)
      placeBefore(plan, k, all, idle, cost, insertions);
    apply(plan, std::move(insertions));
    return {};
  }
  placeBefore(plan, 0, all, idle, cost, insertions);
  apply(plan, std::move(insertions));
  for (int k = 0; k + 1 < plan.steps; ++k) {
    auto gaps = gapsOf(plan, cost, k);
    if (!gaps) return std::move(gaps).takeError();
    insertions.clear();
    std::vector<int> leftover;
    for (int m : all) {
      const Action fill = fillOf(m, k, 1);
      bool placed = false;
      for (Gap& g : *gaps) {
        const std::int64_t d = opDurationNs(plan, cost, fill, g.rank);
        if (g.end - g.start < d) continue;
        insertions.push_back({g.rank, g.position, fill});
        g.start += d;
        placed = true;
        break;
      }
      if (!placed) leftover.push_back(m);
    }
    placeBefore(plan, k + 1, leftover, idle, cost, insertions);
    apply(plan, std::move(insertions));
  }
  return {};
}

}  // namespace ps::runtime
