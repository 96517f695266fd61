// Issue 30 item 17: `report --sensitivity` on a 25M-op run ran past 10 minutes. The table's size
// (its simulations × the plan's actions) is known before anything runs: past
// kMaxSensitivityActions it is refused with the numbers, and a cancel flag stops it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "runtime/run/PlanBuilder.h"
#include "runtime/run/Sensitivity.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

BuiltPlan onefoneb(int stages, int microbatches) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = stages;
  spec.microbatches = microbatches;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  return std::move(*built);
}

// p = 128, m = 3200: 819,200 F and B actions and 128 OPTs, re-simulated 257 times (the base and
// F and B of 128 stages): 2.1e8 actions, past the 2.0e8 limit.
TEST(SensitivityBound, ATableTooLargeIsRefusedWithItsSize) {
  const BuiltPlan built = onefoneb(128, 3200);
  const SensitivitySize size = sensitivitySize(built);
  EXPECT_EQ(size.simulations, 257);
  EXPECT_EQ(size.actionsEach, 819328.0);
  EXPECT_GT(size.total(), kMaxSensitivityActions);
  auto rows = stepSensitivity(built);
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.error(), HasSubstr("257 simulations"));
  EXPECT_THAT(rows.error(), HasSubstr("819328 actions = 2.1e8 actions"));
  EXPECT_THAT(rows.error(), HasSubstr("limit 2.0e8"));
}

TEST(SensitivityBound, ASetCancelFlagStopsIt) {
  const BuiltPlan built = onefoneb(4, 8);
  EXPECT_EQ(sensitivitySize(built).simulations, 9);
  const std::atomic<bool> cancel{true};
  auto rows = stepSensitivity(built, 0.1, &cancel);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.error(), "sensitivity cancelled");
  const std::atomic<bool> go{false};
  auto table = stepSensitivity(built, 0.1, &go);
  ASSERT_TRUE(table.ok()) << table.error();
  EXPECT_EQ(table->size(), 8u);
}

}  // namespace
}  // namespace ps::runtime
