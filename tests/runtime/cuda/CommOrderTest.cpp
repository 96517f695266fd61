// The NCCL call order of the cuda backend (runtime/cuda/CommOrder), proved on the CPU for every
// schedule generator: one channel per ordered rank pair, messages in the sender's order, and the
// programs played with NCCL's matching rules finish.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cuda/CommOrder.h"
#include "runtime/exec/ActionMessages.h"
#include "runtime/plan/Validator.h"
#include "runtime/schedules/Schedule.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

struct Shape {
  int p, m, v, steps;
};

TEST(CommOrder, EveryGeneratorGetsADeadlockFreeChannelOrder) {
  const std::vector<Shape> shapes = {{2, 4, 2, 2}, {4, 8, 2, 3}, {4, 16, 1, 2}, {8, 16, 2, 3}};
  int checked = 0;
  for (const ScheduleInfo& info : scheduleRegistry())
    for (const Shape& s : shapes) {
      auto plan = generateSchedule(info.name, {s.p, s.m, s.v, s.steps});
      if (!plan) continue;  // outside the schedule's constraints (e.g. m a multiple of 2p)
      auto order = planCommOrder(*plan);
      ASSERT_TRUE(order.ok()) << info.name << ": " << order.error();
      EXPECT_TRUE(checkCommOrder(*plan, *order).ok())
          << info.name << " p=" << s.p << " m=" << s.m << ": "
          << checkCommOrder(*plan, *order).error();
      ++checked;
    }
  EXPECT_GE(checked, static_cast<int>(scheduleRegistry().size()) * 2);
}

TEST(CommOrder, OneFOneBNeighboursExchangeInProgramOrder) {
  auto plan = generateSchedule("1f1b", {3, 4, 1, 1});
  ASSERT_TRUE(plan.ok());
  auto order = planCommOrder(*plan);
  ASSERT_TRUE(order.ok());
  // Activations 0→1, 1→2 and gradients 2→1, 1→0: four channels, M messages each.
  EXPECT_EQ(order->channels.size(), 4u);
  for (const auto& [channel, list] : order->channels) {
    EXPECT_EQ(list.size(), 4u);
    for (std::size_t k = 0; k < list.size(); ++k)
      EXPECT_EQ(list[k].microbatch, static_cast<int>(k)) << channel.first << "->" << channel.second;
  }
  EXPECT_EQ(order->indexOf(0, 1, order->channels.at({0, 1})[2]), 2);
  EXPECT_EQ(order->indexOf(1, 0, order->channels.at({0, 1})[2]), -1);
}

TEST(CommOrder, AReceiveOrderThatDiffersFromTheSendOrderStillFinishes) {
  // Rank 1 of GPipe takes its forwards in reverse micro-batch order: NCCL would match them in
  // rank 0's order, so the receives are posted ahead (into their own buffers) and all arrive.
  auto plan = generateSchedule("gpipe", {2, 4, 1, 1});
  ASSERT_TRUE(plan.ok());
  auto& program = plan->programs[1];
  std::reverse(program.begin(), program.begin() + 4);
  auto order = planCommOrder(*plan);
  ASSERT_TRUE(order.ok());
  EXPECT_TRUE(checkCommOrder(*plan, *order).ok());
}

TEST(CommOrder, ACyclicWaitIsReportedWithTheStuckRanks) {
  // Rank 1 runs a backward before the forward that feeds it: rank 0 waits for a gradient that
  // can never come.
  auto plan = generateSchedule("1f1b", {2, 2, 1, 1});
  ASSERT_TRUE(plan.ok());
  auto& program = plan->programs[0];
  const auto firstB = std::find_if(program.begin(), program.end(),
                                   [](const Action& a) { return a.kind == OpKind::B; });
  ASSERT_NE(firstB, program.end());
  std::rotate(program.begin(), firstB, firstB + 1);  // rank 0: B0 first
  auto order = planCommOrder(*plan);
  ASSERT_TRUE(order.ok());
  const Status status = checkCommOrder(*plan, *order);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.error(), HasSubstr("deadlocks"));
  EXPECT_THAT(status.error(), HasSubstr("rank 0 at 0B0"));
}

TEST(CommOrder, AMessageNobodyReceivesIsReported) {
  auto plan = generateSchedule("gpipe", {2, 2, 1, 1});
  ASSERT_TRUE(plan.ok());
  auto& program = plan->programs[1];
  program.erase(
      std::remove_if(program.begin(), program.end(),
                     [](const Action& a) { return a.microbatch == 1 && a.kind == OpKind::F; }),
      program.end());
  auto order = planCommOrder(*plan);
  ASSERT_TRUE(order.ok());
  const Status status = checkCommOrder(*plan, *order);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.error(), HasSubstr("never received"));
}

}  // namespace
}  // namespace ps::runtime
