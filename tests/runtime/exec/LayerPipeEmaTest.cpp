// LayerPipe2's weight reconstruction (--weight-versions ema, issue 35 item 7): an asynchronous
// pipeline's backward runs on the weights its forward saw, rebuilt from the live weights and a
// moving average ē of the stage's updates (W − k·ē after k updates) instead of a stashed copy
// per micro-batch. With β = 0 and one update between a forward and its backward (PipeDream at
// p = 2) the rebuild is the stashed version up to rounding; at p = 4 it needs two copies of a
// stage's weights where the stash needs up to p + 1.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

std::vector<double> losses(const PlanSpec& spec, float beta) {
  return test::tinySgdLosses(spec, [&](CpuRunOptions& o) { o.weightAverageBeta = beta; });
}

PlanSpec pipedream(int stages, const std::string& versions) {
  return test::asyncPipedream(stages, versions);
}

TEST(LayerPipeEma, OneUpdateApartTheRebuiltWeightsAreTheStashedOnes) {
  const auto stash = losses(pipedream(2, "stash"), 0);
  const auto ema = losses(pipedream(2, "ema"), 0);
  const auto latest = losses(pipedream(2, "latest"), 0);
  ASSERT_EQ(stash.size(), 6u);
  ASSERT_EQ(ema.size(), 6u);
  ASSERT_EQ(latest.size(), 6u);
  double apart = 0;
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_NEAR(ema[k], stash[k], 1e-5 * stash[k]) << k;
    apart = std::max(apart, std::abs(latest[k] - stash[k]));
  }
  EXPECT_GT(apart, 1e-4) << "the live weights must differ from the forward's for this to test";
  EXPECT_LT(ema.back(), ema.front());
}

std::int64_t peakOfRankZero(const std::string& versions) {
  auto built = buildPlan(pipedream(4, versions));
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return -1;
  auto sim = simulate(built->plan, built->graph, built->cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? sim->peakMemory[0] : -1;
}

TEST(LayerPipeEma, TwoCopiesOfTheWeightsInPlaceOfTheStash) {
  const std::int64_t stash = peakOfRankZero("stash"), ema = peakOfRankZero("ema"),
                     latest = peakOfRankZero("latest");
  const std::int64_t copy = 64ll << 20;  // one layer's weights a stage
  EXPECT_EQ(ema, latest + 2 * copy);
  EXPECT_LT(ema, stash);
  // At p = 4 and β = 0.9 it still trains.
  const auto trained = losses(pipedream(4, "ema"), 0.9f);
  ASSERT_EQ(trained.size(), 6u);
  EXPECT_LT(trained.back(), trained.front());
}

}  // namespace
}  // namespace ps::runtime
