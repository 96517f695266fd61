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

// LayerPipe's two halves together: an asynchronous pipeline whose backwards are split, each I
// first and its W right after it. The weights and losses are the unsplit pipeline's (the same
// arithmetic in the same order), under every way of keeping weight versions; the input gradient
// leaves W earlier, so at F = I = W the pipeline's span is shorter.
TEST(LayerPipeEma, AnAsynchronousPipelineSplitsItsBackwardWithoutChangingWhatItLearns) {
  for (const std::string versions : {"stash", "latest", "ema", "blend"}) {
    SCOPED_TRACE(versions);
    PlanSpec split = pipedream(4, versions);
    split.splitBackward = true;
    const auto whole = losses(pipedream(4, versions), 0.9f), halves = losses(split, 0.9f);
    ASSERT_EQ(whole.size(), 6u);
    ASSERT_EQ(halves.size(), 6u);
    for (std::size_t k = 0; k < 6; ++k)
      EXPECT_NEAR(halves[k], whole[k], 1e-6 * whole[k]) << k;
  }
  const auto span = [](bool splitBackward) {
    PlanSpec spec = pipedream(4, "stash");
    spec.uniform.fwdUs = 100;
    spec.uniform.bwdUs = 200;
    spec.uniform.wgradUs = 100;
    spec.splitBackward = splitBackward;
    auto built = buildPlan(spec);
    EXPECT_TRUE(built.ok()) << built.error();
    if (!built.ok()) return std::int64_t{-1};
    for (const auto& program : built->plan.programs)  // each I followed by its own W
      for (std::size_t i = 0; i < program.size(); ++i)
        if (program[i].kind == OpKind::I) {
          EXPECT_LT(i + 1, program.size());
          if (i + 1 < program.size()) {
            EXPECT_EQ(program[i + 1].kind, OpKind::W);
            EXPECT_EQ(program[i + 1].microbatch, program[i].microbatch);
          }
        }
    auto sim = simulate(built->plan, built->graph, built->cost);
    EXPECT_TRUE(sim.ok()) << sim.error();
    return sim.ok() ? sim->makespan : -1;
  };
  EXPECT_LT(span(true), span(false));
  PlanSpec bounded = pipedream(4, "stash");
  bounded.splitBackward = true;
  bounded.maxDeferredW = 2;
  auto refused = buildPlan(bounded);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("--max-deferred-w 2: pipedream is asynchronous"),
            std::string::npos)
      << refused.error();
}

}  // namespace
}  // namespace ps::runtime
