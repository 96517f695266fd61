#include "trace/ProgressThrottle.h"

#include <gtest/gtest.h>

#include <thread>

namespace ps::trace {
namespace {

TEST(ProgressThrottle, OncePerPercentWithoutAnInterval) {
  ProgressThrottle t;
  int shown = 0;
  for (int i = 0; i <= 100000; ++i)
    shown += t.pass(i / 100000.0) ? 1 : 0;
  EXPECT_EQ(shown, 101);  // 0 %, 1 % … 100 %
}

TEST(ProgressThrottle, NewStageAndEndOfStageAlwaysGoThrough) {
  ProgressThrottle t(std::chrono::hours(1));
  EXPECT_TRUE(t.pass("plan", 0.0));
  EXPECT_FALSE(t.pass("plan", 0.5)) << "within the interval";
  EXPECT_TRUE(t.pass("plan", 1.0)) << "the end of a stage";
  EXPECT_TRUE(t.pass("run", 0, 10)) << "a new stage";
  EXPECT_FALSE(t.pass("run", 3, 10));
  EXPECT_TRUE(t.pass("run", 10, 10));
  EXPECT_TRUE(t.pass("write", 0, 0)) << "total 0 counts as done";
}

TEST(ProgressThrottle, AnIntervalHoldsBackUpdatesUntilItHasPassed) {
  ProgressThrottle t(std::chrono::milliseconds(20));
  EXPECT_TRUE(t.pass("read", 0.10));
  EXPECT_FALSE(t.pass("read", 0.20));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_TRUE(t.pass("read", 0.30));
  EXPECT_FALSE(t.pass("read", 0.30)) << "no percent moved";
}

TEST(ProgressThrottle, ClampsFractionsOutsideZeroToOne) {
  ProgressThrottle t(std::chrono::hours(1));
  EXPECT_TRUE(t.pass("x", -3.0));
  EXPECT_TRUE(t.pass("x", 7.0)) << "clamped to 1: the end of the stage";
}

}  // namespace
}  // namespace ps::trace
