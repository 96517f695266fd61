// DynaPipe (--seq-lengths): sequences of different lengths grouped into micro-batches of
// different sizes. Packing fills rows in order; the DP's groups are sorted, padded, within the
// token budget and optimal for Σ t + (p-1)·max t (checked against every grouping of a small
// batch); and on the presets' skewed lengths the DP's pipeline beats packing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "runtime/run/RunPlan.h"
#include "runtime/schedules/VariableMicrobatches.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

std::vector<int> everySequence(const Microbatching& mb) {
  std::vector<int> all;
  for (const auto& g : mb.groups)
    all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<int> indices(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = i;
  return v;
}

TEST(VariableMicrobatches, PaddedGroupCostGrowsWithTokensAndLength) {
  const SequenceBatching b{2048, 0.5, 8192, 0};
  EXPECT_DOUBLE_EQ(paddedGroupScale(b, 1, 2048), 1.0);
  // Two 1024-token sequences: the same tokens, half the attention.
  EXPECT_DOUBLE_EQ(paddedGroupScale(b, 2, 1024), 0.75);
  const SequenceBatching withOverhead{2048, 0.5, 8192, 0.1};
  EXPECT_DOUBLE_EQ(paddedGroupScale(withOverhead, 2, 1024), 0.85);
}

TEST(VariableMicrobatches, PackingFillsRowsFirstFitInOrder) {
  const SequenceBatching b{1000, 0.5, 2000, 0.25};
  // Rows: {600, 400}, {700, 300}, {900}; two rows to a micro-batch.
  const std::vector<int> lengths{600, 700, 400, 900, 300};
  auto mb = packedMicrobatches(lengths, b);
  ASSERT_TRUE(mb.ok()) << mb.error();
  ASSERT_EQ(mb->scales.size(), 2u);
  EXPECT_DOUBLE_EQ(mb->scales[0], 2.25);
  EXPECT_DOUBLE_EQ(mb->scales[1], 1.25);
  EXPECT_EQ(mb->groups[0], (std::vector<int>{0, 2, 1, 4}));
  EXPECT_EQ(mb->groups[1], (std::vector<int>{3}));
  EXPECT_EQ(mb->paddedTokens, 3000);
}

// Every split of the sorted lengths into contiguous groups within the budget: the best latency.
double bruteForceBest(std::vector<int> sorted, const SequenceBatching& b, int stages) {
  std::sort(sorted.begin(), sorted.end());
  const int n = static_cast<int>(sorted.size());
  double best = std::numeric_limits<double>::infinity();
  for (unsigned cuts = 0; cuts < (1u << (n - 1)); ++cuts) {
    std::vector<double> scales;
    int start = 0;
    bool fits = true;
    for (int i = 0; i < n; ++i)
      if (i == n - 1 || (cuts >> i & 1u)) {
        const int count = i - start + 1;
        fits = fits && static_cast<long long>(count) * sorted[static_cast<std::size_t>(i)] <=
                           b.budgetTokens;
        scales.push_back(paddedGroupScale(b, count, sorted[static_cast<std::size_t>(i)]));
        start = i + 1;
      }
    if (fits) best = std::min(best, pipelineLatency(scales, stages));
  }
  return best;
}

TEST(VariableMicrobatches, TheDpFindsTheBestGroupingOfASmallBatch) {
  const SequenceBatching b{2048, 0.5, 4096, 0.05};
  const std::vector<int> lengths{300, 64, 2048, 128, 900, 96, 512, 1500, 200, 64, 700};
  auto dp = dpMicrobatches(lengths, b, 4);
  ASSERT_TRUE(dp.ok()) << dp.error();
  EXPECT_EQ(everySequence(*dp), indices(static_cast<int>(lengths.size())));
  long long padded = 0;
  for (const auto& g : dp->groups) {
    int longest = 0;
    for (int s : g)
      longest = std::max(longest, lengths[static_cast<std::size_t>(s)]);
    EXPECT_LE(static_cast<long long>(g.size()) * longest, b.budgetTokens);
    padded += static_cast<long long>(g.size()) * longest;
  }
  EXPECT_EQ(dp->paddedTokens, padded);
  EXPECT_NEAR(pipelineLatency(dp->scales, 4), bruteForceBest(lengths, b, 4), 1e-9);
}

TEST(VariableMicrobatches, TheDpsPipelineBeatsPackingOnSkewedLengths) {
  const PlanSpec dynapipe = test::presetSpec("dynapipe");
  const PlanSpec packed = test::presetSpec("dynapipe-baseline");
  auto a = buildPlan(dynapipe);
  auto b = buildPlan(packed);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  // More, smaller micro-batches of different sizes.
  EXPECT_GT(a->plan.numMicrobatches(), b->plan.numMicrobatches());
  double smallest = 1e9, largest = 0;
  for (const auto& mb : a->plan.microbatches) {
    smallest = std::min(smallest, mb.costScale);
    largest = std::max(largest, mb.costScale);
  }
  EXPECT_GT(largest, 2 * smallest);
  auto simA = simulate(a->plan, a->graph, a->cost);
  auto simB = simulate(b->plan, b->graph, b->cost);
  ASSERT_TRUE(simA.ok() && simB.ok());
  EXPECT_LT(static_cast<double>(simA->makespan), 0.75 * static_cast<double>(simB->makespan));
}

// The DP's groups come cheapest first and last: on the preset that beats running them from the
// smallest to the largest (the largest's backwards would drain the pipeline alone).
TEST(VariableMicrobatches, TheOrderPutsTheDearestInTheMiddle) {
  auto built = buildPlan(test::presetSpec("dynapipe"));
  ASSERT_TRUE(built.ok()) << built.error();
  const auto& mbs = built->plan.microbatches;
  const auto largest = std::max_element(mbs.begin(), mbs.end(), [](const auto& x, const auto& y) {
    return x.costScale < y.costScale;
  });
  EXPECT_GT(largest - mbs.begin(), 0);
  EXPECT_LT(largest - mbs.begin(), static_cast<long>(mbs.size()) - 1);
  EXPECT_LE(mbs.front().costScale, mbs[1].costScale);
  EXPECT_LE(mbs.back().costScale, mbs[mbs.size() - 2].costScale);
  auto pyramid = simulate(built->plan, built->graph, built->cost);
  Plan ascending = built->plan;
  std::sort(ascending.microbatches.begin(), ascending.microbatches.end(),
            [](const auto& x, const auto& y) { return x.costScale < y.costScale; });
  auto sorted = simulate(ascending, built->graph, built->cost);
  ASSERT_TRUE(pyramid.ok() && sorted.ok());
  EXPECT_LT(pyramid->makespan, sorted->makespan);
}

TEST(VariableMicrobatches, ARerunTakesTheLengthsFromTheConfigNotTheFile) {
  const std::string path = ::testing::TempDir() + "/lengths.txt";
  {
    std::ofstream out(path);
    out << "100\n2000 300,\n50\n";
  }
  PlanSpec spec;
  spec.stages = 2;
  spec.seqLengths = "@" + path;
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  std::remove(path.c_str());
  EXPECT_THAT(built->configJson, HasSubstr("\"seq_lengths\":\"100,2000,300,50\""));
  EXPECT_THAT(built->configJson, ::testing::Not(HasSubstr("\"microbatches\"")));
}

TEST(VariableMicrobatches, GpusRefuseThemBeforeWriting) {
  test::TempDir dir;
  RunPlanRequest r = test::tinyModelRun(Backend::Cuda, 4, 4, 1);
  r.spec.microbatches.reset();
  r.spec.seqLengths = "100,2000,300,50,700";
  r.spec.microbatchTokens = 4096;
  r.exec.model.seq = 2048;
  auto refused = runPlan(r, {dir.file("x.sqlite")});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(),
              HasSubstr("--seq-lengths: the cuda backend runs micro-batches of one shape"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.sqlite")));
}

TEST(VariableMicrobatches, BadInputNamesTheFlagAndValue) {
  PlanSpec spec;
  spec.seqLengths = "100,abc";
  auto bad = buildPlan(spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error(), HasSubstr("--seq-lengths 100,abc: \"abc\""));
  spec.seqLengths = "100,4096";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("\"4096\" is not a sequence length in 1..2048"));
  spec.seqLengths = "@/nonexistent/lengths";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("cannot read /nonexistent/lengths"));
  spec.seqLengths = "100";
  spec.microbatches = 4;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("drop --microbatches 4"));
  spec.microbatches.reset();
  spec.microbatching = "sorted";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--microbatching sorted: expected dp or packed"));
  spec.microbatching = "dp";
  spec.microbatchTokens = 1000;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--microbatch-tokens 1000"));
}

}  // namespace
}  // namespace ps::runtime
