#include "runtime/plan/Lowering.h"

#include <gtest/gtest.h>

#include <map>

#include "runtime/plan/OpGraph.h"
#include "tests/runtime/PlanTestUtil.h"

namespace ps::runtime {
namespace {

std::vector<std::string> spelled(const std::vector<Action>& program) {
  std::vector<std::string> out;
  for (const auto& a : program) {
    std::string s = actionLabel(a);
    if (a.peer >= 0) s += "@" + std::to_string(a.peer);
    out.push_back(s);
  }
  return out;
}

std::vector<std::vector<Action>> lower(const Plan& plan) {
  auto graph = buildOpGraph(plan);
  EXPECT_TRUE(graph) << graph.error();
  if (!graph) return {};
  return lowerCommunication(plan, *graph);
}

TEST(LoweringTest, OneFOneBTwoRanks) {
  const Plan plan = test::chainPlan(2, 2,
                                    {{"0F0", "0F1", "0B0", "0B1"},  //
                                     {"1F0", "1B0", "1F1", "1B1"}});
  const auto lowered = lower(plan);
  ASSERT_EQ(lowered.size(), 2u);
  EXPECT_EQ(spelled(lowered[0]),
            (std::vector<std::string>{"0F0", "0SEND_F0@1", "0F1", "0SEND_F1@1", "0RECV_B0@1", "0B0",
                                      "0RECV_B1@1", "0B1"}));
  EXPECT_EQ(spelled(lowered[1]),
            (std::vector<std::string>{"1RECV_F0@0", "1F0", "1B0", "1SEND_B0@0", "1RECV_F1@0", "1F1",
                                      "1B1", "1SEND_B1@0"}));
}

TEST(LoweringTest, SplitBackwardSendsAfterIOnlyAndWMovesNothing) {
  Plan plan = test::chainPlan(2, 1, {{"0F0", "0I0", "0W0"}, {"1F0", "1I0", "1W0"}});
  plan.splitBackward = true;
  const auto lowered = lower(plan);
  ASSERT_EQ(lowered.size(), 2u);
  EXPECT_EQ(spelled(lowered[0]),
            (std::vector<std::string>{"0F0", "0SEND_F0@1", "0RECV_B0@1", "0I0", "0W0"}));
  EXPECT_EQ(spelled(lowered[1]),
            (std::vector<std::string>{"1RECV_F0@0", "1F0", "1I0", "1SEND_B0@0", "1W0"}));
}

TEST(LoweringTest, StagesOnTheSameRankNeedNoTransfer) {
  // V-shape on one rank pair: stages 0 and 3 on rank 0, 1 and 2 on rank 1.
  Plan plan = test::chainPlan(2, 1, {{"0F0", "3F0", "3B0", "0B0"}, {"1F0", "2F0", "2B0", "1B0"}});
  plan.numStages = 4;
  plan.chunks = 2;
  plan.placement[0].resize(4);
  for (int s = 0; s < 4; ++s)
    plan.placement[0][s] = {s == 0 || s == 3 ? 0 : 1, s, s};
  plan.numLayers = 4;
  const auto lowered = lower(plan);
  ASSERT_EQ(lowered.size(), 2u);
  EXPECT_EQ(spelled(lowered[0]),
            (std::vector<std::string>{"0F0", "0SEND_F0@1", "3RECV_F0@1", "3F0", "3B0", "3SEND_B0@1",
                                      "0RECV_B0@1", "0B0"}));
  EXPECT_EQ(spelled(lowered[1]),
            (std::vector<std::string>{"1RECV_F0@0", "1F0", "2F0", "2SEND_F0@0", "2RECV_B0@0", "2B0",
                                      "1B0", "1SEND_B0@0"}));
}

TEST(LoweringTest, OverlapUnitIsNotSplit) {
  Plan plan = test::chainPlan(2, 2,
                              {{"0F0", "0F1", "0B0", "0B1"},  //
                               {"1F0", "1F1", "1B0", "1B1"}});
  plan.programs[1][1].overlapNext = true;  // (1F1;1B0) run overlapped
  const auto lowered = lower(plan);
  ASSERT_EQ(lowered.size(), 2u);
  EXPECT_EQ(spelled(lowered[1]),
            (std::vector<std::string>{"1RECV_F0@0", "1F0", "1RECV_F1@0", "1F1", "1B0", "1SEND_B0@0",
                                      "1B1", "1SEND_B1@0"}));
  EXPECT_TRUE(lowered[1][3].overlapNext);
}

TEST(LoweringTest, EverySendHasAMatchingReceive) {
  const Plan plan = test::oneFOneB(4, 8);
  const auto lowered = lower(plan);
  // (kind family, stage of sender, mb, src, dst) balance: +1 per send, −1 per receive.
  std::map<std::tuple<bool, int, int, int>, int> balance;
  std::size_t comms = 0;
  for (int r = 0; r < static_cast<int>(lowered.size()); ++r)
    for (const auto& a : lowered[r]) {
      if (trace::isSend(a.kind)) {
        const bool fwd = a.kind == OpKind::SEND_F;
        ++balance[{fwd, a.microbatch, r, a.peer}];
        ++comms;
      } else if (trace::isRecv(a.kind)) {
        const bool fwd = a.kind == OpKind::RECV_F;
        --balance[{fwd, a.microbatch, a.peer, r}];
        ++comms;
      }
    }
  for (const auto& [key, n] : balance)
    EXPECT_EQ(n, 0);
  // 3 boundaries × 8 micro-batches × (forward + backward) × (send + receive).
  EXPECT_EQ(comms, 3u * 8u * 2u * 2u);
}

}  // namespace
}  // namespace ps::runtime
