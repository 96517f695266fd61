// DiffusionPipe's frozen work shared out over the ranks (--frozen-us, --fill): what each rank
// already holds is counted in int64 nanoseconds. An int load per rank wrapped past 2^31 ns
// (2.1 s), so the rank holding it looked idle and took every further FILL (issue 30, item 8).

#include <gtest/gtest.h>

#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

// The plan: 1F1B p4 m8, 300 ms of frozen work a micro-batch on devices of speed 0.25:
// 1.2 s a FILL, two a rank (2.4 s) when shared evenly, past 2^31 ns.
PlanSpec frozenPlan(const std::string& fill, int steps) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.steps = steps;
  spec.frozenUs = 300'000;
  spec.fill = fill;
  spec.rankSpeed = {0.25, 0.25, 0.25, 0.25};
  return spec;
}

std::vector<int> fillsPerRank(const Plan& plan, int step) {
  std::vector<int> out(static_cast<std::size_t>(plan.numRanks), 0);
  for (int r = 0; r < plan.numRanks; ++r)
    for (const Action& a : plan.programs[static_cast<std::size_t>(r)])
      if (a.kind == OpKind::FILL && a.step == step && a.ahead == 0)
        ++out[static_cast<std::size_t>(r)];
  return out;
}

// Before each step: 8 FILLs of 1.2 s over 4 ranks are 2 a rank, so the step is 2.4 s of frozen
// work and the pipeline ((8 + 3) × 300 µs at speed 0.25 = 13.2 ms) after it: 2.4132 s. The int
// load wrapped after the fifth FILL and rank 0 took the last four (6 s).
TEST(FrozenFillLoad, FillsBeforeTheStepStaySharedEvenlyPastTwoToThe31Nanoseconds) {
  auto built = buildPlan(frozenPlan("before", 2));
  ASSERT_TRUE(built.ok()) << built.error();
  for (int step = 0; step < 2; ++step)
    EXPECT_EQ(fillsPerRank(built->plan, step), (std::vector<int>{2, 2, 2, 2})) << "step " << step;
  auto sim = simulate(built->plan, built->graph, built->cost);
  ASSERT_TRUE(sim.ok()) << sim.error();
  EXPECT_EQ(sim->makespan, 2 * (2'400'000'000 + 13'200'000));
}

// In the bubbles: step 0's FILLs (nothing runs before them) are shared the same way, 2 a rank.
TEST(FrozenFillLoad, TheFirstStepsFillsStaySharedEvenlyWhenPackingIntoBubbles) {
  auto built = buildPlan(frozenPlan("bubbles", 2));
  ASSERT_TRUE(built.ok()) << built.error();
  EXPECT_EQ(fillsPerRank(built->plan, 0), (std::vector<int>{2, 2, 2, 2}));
}

}  // namespace
}  // namespace ps::runtime
