// Bubble, busy, memory, link and metric maths on hand-built traces whose answers are worked out
// by hand in the comments.

#include <gtest/gtest.h>

#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {
namespace {

using test::compute;
using test::send;

TEST(RunAnalysis, BusyIsTheUnionOfComputeIntervals) {
  // rank 0: [0,10) and [20,30)          -> busy 20
  // rank 1: [5,15) overlapping [10,25)  -> union [5,25) = 20
  // span [0,30) = 30 -> both ranks 1 - 20/30 = 1/3
  TraceBatch b;
  b.ops = {compute(0, OpKind::F, 0, 0, 10), compute(0, OpKind::B, 0, 20, 30),
           compute(1, OpKind::F, 0, 5, 15), compute(1, OpKind::FILL, 1, 10, 25),
           // comm ops never count as busy
           send(0, 1, 100, 10, 20)};
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(2), b));
  ASSERT_EQ(a.steps.size(), 1u);
  EXPECT_EQ(a.steps[0].span_ns(), 30);
  EXPECT_EQ(a.ranks[0].busy_ns, 20);
  EXPECT_EQ(a.ranks[1].busy_ns, 20);
  EXPECT_DOUBLE_EQ(*a.ranks[0].bubble_ratio, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(*a.bubble_ratio, 1.0 / 3.0);
  EXPECT_EQ(a.step_time_ns, 30);
}

TEST(RunAnalysis, IdleRankCountsAsFullyBubbled) {
  // 3 ranks, only ranks 0 and 1 compute: [0,10) and [0,5). span 10.
  // bubbles 0, 0.5, 1 -> mean 0.5
  TraceBatch b;
  b.ops = {compute(0, OpKind::F, 0, 0, 10), compute(1, OpKind::F, 0, 0, 5)};
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(3), b));
  EXPECT_DOUBLE_EQ(*a.ranks[2].bubble_ratio, 1.0);
  EXPECT_DOUBLE_EQ(*a.bubble_ratio, 0.5);
}

TEST(RunAnalysis, StepsAreMeasuredSeparatelyAndAveraged) {
  // step 0: rank 0 [0,10), rank 1 [10,20) -> span 20, bubbles 0.5 and 0.5
  // step 1: rank 0 [100,130), rank 1 [100,120) -> span 30, bubbles 0 and 1/3
  // step bubble: 0.5 and 1/6 -> run 1/3; step time (20+30)/2 = 25
  TraceBatch b;
  b.ops = {compute(0, OpKind::F, 0, 0, 10, 0), compute(1, OpKind::F, 0, 10, 20, 0),
           compute(0, OpKind::F, 0, 100, 130, 1), compute(1, OpKind::F, 0, 100, 120, 1)};
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(2), b));
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(a.steps[0].bubble_ratio, 0.5);
  EXPECT_DOUBLE_EQ(a.steps[1].bubble_ratio, 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(*a.bubble_ratio, (0.5 + 1.0 / 6.0) / 2.0);
  EXPECT_EQ(*a.step_time_ns, 25);
  EXPECT_DOUBLE_EQ(*a.ranks[1].bubble_ratio, (0.5 + 1.0 / 3.0) / 2.0);
  EXPECT_EQ(a.steady_bubble_ratio, std::nullopt) << "needs at least 3 steps";
}

TEST(RunAnalysis, SteadyStateBubbleUsesWindowFromStepOneToLastStep) {
  // Overlapping steps (no barrier). rank 0 computes step k at [10k, 10k+8), rank 1 at
  // [10k+4, 10k+10). 4 steps: window rank 0 = [10, 30): busy 8+8 = 16 -> 0.2;
  // rank 1 = [14, 34): busy 6+6 = 12 -> 0.4. mean 0.3.
  TraceBatch b;
  for (int k = 0; k < 4; ++k) {
    b.ops.push_back(compute(0, OpKind::F, k, 10 * k, 10 * k + 8, k));
    b.ops.push_back(compute(1, OpKind::F, k, 10 * k + 4, 10 * k + 10, k));
  }
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(2), b));
  ASSERT_TRUE(a.steady_bubble_ratio.has_value());
  EXPECT_DOUBLE_EQ(*a.steady_bubble_ratio, 0.3);
}

class GpipeBubble : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(GpipeBubble, EqualsPMinusOneOverMPlusPMinusOne) {
  const auto [p, m] = GetParam();
  SyntheticGpipe g;
  g.ranks = p;
  g.microbatches = m;
  g.steps = 2;
  TraceBatch all;
  for (int s = 0; s < g.steps; ++s) {
    auto b = syntheticGpipeStep(g, s);
    all.ops.insert(all.ops.end(), b.ops.begin(), b.ops.end());
    all.memory.insert(all.memory.end(), b.memory.begin(), b.memory.end());
  }
  const auto a = analyzeRun(test::roundTrip(syntheticGpipeHeader(g), all));
  const double expected = static_cast<double>(p - 1) / static_cast<double>(m + p - 1);
  ASSERT_TRUE(a.bubble_ratio.has_value());
  EXPECT_NEAR(*a.bubble_ratio, expected, 1e-12);
  for (const auto& r : a.ranks) {
    EXPECT_NEAR(*r.bubble_ratio, expected, 1e-12) << "rank " << r.rank;
    EXPECT_EQ(r.busy_ns, 2 * 3 * g.fwd_ns * m);
    // GPipe holds every micro-batch's activations at the end of the forwards.
    EXPECT_EQ(r.peak_memory_bytes, g.param_bytes + m * g.act_bytes);
  }
  EXPECT_EQ(*a.step_time_ns, 3 * g.fwd_ns * (m + p - 1));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpipeBubble,
                         ::testing::Values(std::tuple{2, 1}, std::tuple{2, 4}, std::tuple{4, 8},
                                           std::tuple{4, 4}, std::tuple{8, 3}, std::tuple{8, 32},
                                           std::tuple{1, 5}));

TEST(RunAnalysis, PeakMemoryIsTheMaximumSample) {
  TraceBatch b;
  b.ops = {compute(0, OpKind::F, 0, 0, 10)};
  b.memory = {{0, 0, 100}, {0, 5, 700}, {0, 9, 300}, {1, 0, 50}};
  auto h = test::simpleHeader(3);
  h.ranks[0].memory_capacity_bytes = 1000;
  const auto a = analyzeRun(test::roundTrip(h, b));
  EXPECT_EQ(a.ranks[0].peak_memory_bytes, 700);
  EXPECT_EQ(a.ranks[0].memory_capacity_bytes, 1000);
  EXPECT_EQ(a.ranks[1].peak_memory_bytes, 50);
  EXPECT_EQ(a.ranks[2].peak_memory_bytes, std::nullopt);
}

TEST(RunAnalysis, LinksSumBytesAndUnionBusyPerPair) {
  // 0->1: [0,10) 100 B and [5,20) 200 B -> 300 B, busy 20; 1->0: [30,35) 50 B.
  // 1->2: [0,4) and [10,14) -> busy 8. RECV ops never count.
  TraceBatch b;
  b.ops = {send(0, 1, 100, 0, 10), send(0, 1, 200, 5, 20),
           send(1, 0, 50, 30, 35), send(1, 2, 10, 0, 4),
           send(1, 2, 10, 10, 14), {1, OpKind::RECV_F, 1, 0, 0, 0, 20, 0, 300, {}}};
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(3), b));
  ASSERT_EQ(a.links.size(), 3u);
  EXPECT_EQ(a.links[0].src, 0);
  EXPECT_EQ(a.links[0].dst, 1);
  EXPECT_EQ(a.links[0].bytes, 300);
  EXPECT_EQ(a.links[0].busy_ns, 20);
  EXPECT_EQ(a.links[1].src, 1);
  EXPECT_EQ(a.links[1].dst, 0);
  EXPECT_EQ(a.links[1].bytes, 50);
  EXPECT_EQ(a.links[1].busy_ns, 5);
  EXPECT_EQ(a.links[2].dst, 2);
  EXPECT_EQ(a.links[2].busy_ns, 8);
}

TEST(RunAnalysis, MetricsKeepTheLastStepsValue) {
  TraceBatch b;
  b.ops = {compute(0, OpKind::F, 0, 0, 10)};
  b.metrics = {{2, 0, "loss", 1.5},
               {0, 0, "loss", 3.0},
               {1, 0, "loss", 2.0},
               {0, std::nullopt, "samples_per_s", 10.0}};
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(1), b));
  EXPECT_DOUBLE_EQ(a.metrics.at("loss"), 1.5);
  EXPECT_DOUBLE_EQ(a.metrics.at("samples_per_s"), 10.0);
}

TEST(RunAnalysis, RunWithoutComputeHasNoBubble) {
  TraceBatch b;
  b.ops = {send(0, 1, 10, 0, 5)};
  const auto a = analyzeRun(test::roundTrip(test::simpleHeader(2), b));
  EXPECT_EQ(a.bubble_ratio, std::nullopt);
  EXPECT_EQ(a.step_time_ns, std::nullopt);
  EXPECT_EQ(a.ranks[0].busy_ns, 0);
}

TEST(RunAnalysis, UnionLengthHandlesNestedAndTouchingIntervals) {
  EXPECT_EQ(unionLength({0, 2, 10, 20}, {10, 5, 20, 25}), 25);
  EXPECT_EQ(unionLength({}, {}), 0);
  EXPECT_EQ(unionLength({0, 0}, {0, 0}), 0);
}

}  // namespace
}  // namespace ps::trace
