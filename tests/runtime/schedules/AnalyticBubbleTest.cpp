#include "runtime/schedules/ClosedForms.h"

#include <gtest/gtest.h>

namespace ps::runtime {
namespace {

TEST(AnalyticBubbleTest, ClosedFormsOfThePapers) {
  EXPECT_DOUBLE_EQ(analyticBubble("1f1b", 4, 8, 1)->value, 3.0 / 11.0);
  EXPECT_DOUBLE_EQ(analyticBubble("gpipe", 4, 16, 1)->value, 3.0 / 19.0);
  EXPECT_DOUBLE_EQ(analyticBubble("interleaved-1f1b", 4, 8, 2)->value, 3.0 / 19.0);
  EXPECT_DOUBLE_EQ(analyticBubble("zb-h1", 4, 8, 1)->value, 3.0 / 27.0);
  EXPECT_DOUBLE_EQ(analyticBubble("zb-v", 4, 8, 2)->value, 3.0 / 51.0);
  EXPECT_DOUBLE_EQ(analyticBubble("chimera", 4, 16, 1)->value, 2.0 / 34.0);
  EXPECT_EQ(analyticBubble("1f1b", 4, 8, 1)->formula, "(p-1)/(m+p-1)");
}

TEST(AnalyticBubbleTest, NoneWhereThereIsNoClosedForm) {
  EXPECT_FALSE(analyticBubble("zb-h2", 4, 8, 1));
  EXPECT_FALSE(analyticBubble("pipedream", 4, 8, 1));
  EXPECT_FALSE(analyticBubble("zb-v", 4, 4, 2));     // below 2p-1: list-scheduled order
  EXPECT_FALSE(analyticBubble("chimera", 4, 4, 1));  // one basic unit
  EXPECT_FALSE(analyticBubble("custom", 4, 8, 1));
  EXPECT_FALSE(analyticBubble("1f1b", 0, 8, 1));
}

// Issue 12: a header claiming 2^31-1 ranks made `2 * p - 1` overflow (UBSan halts the test).
TEST(AnalyticBubbleTest, RankCountsAtTheEndOfIntDoNotOverflow) {
  constexpr int kMax = 2147483647;
  EXPECT_FALSE(analyticBubble("zb-v", kMax, 8, 2));
  EXPECT_FALSE(analyticBubble("chimera", kMax, 16, 1));
  ASSERT_TRUE(analyticBubble("zb-v", 4, kMax, 2));
  EXPECT_GT(analyticBubble("1f1b", kMax, kMax, 1)->value, 0.49);
}

}  // namespace
}  // namespace ps::runtime
