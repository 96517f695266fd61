// The partitioner weighs a stage's activations by how many micro-batches the schedule keeps in
// flight on it. It used to plan for one: with a 10 MiB cap per rank, 1F1B over 12 layers of
// 1 MiB got the even cut 3,6,9, whose stage 0 holds 4 micro-batches × 3 MiB = 12 MiB, and the run
// was refused ("rank 0 needs 12.00 MiB") although a cut that fits exists (2,5,10: 8/9/10/2 MiB).

#include <gtest/gtest.h>

#include <memory>

#include "runtime/run/PlanBuilder.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

constexpr std::int64_t kFitMiB = 1 << 20;

TEST(PeakActivationsInFlight, FollowsEachSchedulesOrder) {
  auto count = [](const std::string& name, int p, int m) {
    auto plan = generateSchedule(name, {p, m, 1, 1});
    EXPECT_TRUE(plan.ok()) << plan.error();
    return plan.ok() ? peakActivationsInFlight(*plan) : std::vector<int>{};
  };
  EXPECT_EQ(count("1f1b", 4, 8), (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(count("gpipe", 4, 8), (std::vector<int>{8, 8, 8, 8}));
  EXPECT_EQ(count("1f1b", 4, 2), (std::vector<int>{2, 2, 2, 1})) << "never more than m";
  // Split backward: activations stay until W, which ZB-H1 defers.
  const auto zb = count("zb-h1", 4, 8);
  ASSERT_EQ(zb.size(), 4u);
  EXPECT_GE(zb[0], 4);
}

std::shared_ptr<const CostModel> capped(std::int64_t capBytes) {
  auto cost = std::make_shared<CostModel>(test::uniformCosts(12, 100, 200, 100));
  for (auto& l : cost->layers)
    l.actBytes = kFitMiB;
  cost->ranks.assign(4, RankCost{1.0, capBytes});
  return cost;
}

TEST(PlanMemoryFit, AutomaticBoundariesFitTheCapUnder1F1B) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.costs = capped(10 * kFitMiB);
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  auto sim = simulate(built->plan, built->graph, built->cost);
  ASSERT_TRUE(sim.ok()) << sim.error();
  for (int r = 0; r < 4; ++r)
    EXPECT_LE(sim->peakMemory[r], 10 * kFitMiB) << "rank " << r;
  EXPECT_TRUE(checkMemoryCaps(built->cost, sim->peakMemory).ok());
  // The fitting cut puts fewer layers where more micro-batches wait.
  EXPECT_LT(built->plan.placement[0][1].firstLayer, 3);
}

TEST(PlanMemoryFit, ACapNoCutFitsNamesTheInFlightCount) {
  PlanSpec spec;
  spec.schedule = "gpipe";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.costs = capped(10 * kFitMiB);  // GPipe holds all 8: 3 layers need 24 MiB, 1 layer 8 MiB
  auto built = buildPlan(spec);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.error().find("8 in-flight micro-batches"), std::string::npos) << built.error();
}

}  // namespace
}  // namespace ps::runtime
