// TeraPipe (--token-slices): one sequence cut into token slices that flow through gpipe one after
// the other. The slices' costs add up to the whole sequence's, a slice costs more the longer its
// prefix, the DP's lengths beat equal slices, and a forward-only pipeline of slices takes
// exactly Σ t_i + (p-1)·max t_i (identical stages).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "runtime/run/PlanBuilder.h"
#include "runtime/run/Presets.h"
#include "runtime/schedules/TokenSlices.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(TokenSlices, SliceCostsAddUpAndGrowWithThePrefix) {
  const TokenSlicing s{2048, 0.5};
  double total = 0;
  for (int k = 0; k < 8; ++k)
    total += sliceScale(s, 256 * k, 256);
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_LT(sliceScale(s, 0, 256), sliceScale(s, 1792, 256));
  const auto dp = bestSliceLengths(s, 8, 1);
  EXPECT_EQ(std::accumulate(dp.begin(), dp.end(), 0), 2048);
  EXPECT_GE(dp.front(), dp.back()) << "later slices attend to more: the DP makes them shorter";
}

TEST(TokenSlices, TheDpsSlicesBeatEqualSlicesAndNoSlicing) {
  const auto preset = test::presetSpec;
  PlanSpec whole = preset("terapipe");
  whole.tokenSlices.clear();
  const auto dp = test::simulateSpec(preset("terapipe")).makespan;
  const auto equal = test::simulateSpec(preset("terapipe-baseline")).makespan;
  EXPECT_LT(dp, equal);
  EXPECT_LT(equal, test::simulateSpec(whole).makespan);
}

// The run's name counts sequences and slices as M does ("m=1x25"), not the slices as sequences.
TEST(TokenSlices, ASlicedRunIsNamedBySequencesTimesSlices) {
  const auto sliced = buildPlan(test::presetSpec("terapipe-baseline"));
  ASSERT_TRUE(sliced.ok()) << sliced.error();
  EXPECT_EQ(planRunName(sliced->plan), "gpipe p=8 m=1x8");
  PlanSpec twoSequences = test::presetSpec("terapipe-baseline");
  twoSequences.microbatches = 2;
  const auto two = buildPlan(twoSequences);
  ASSERT_TRUE(two.ok()) << two.error();
  EXPECT_EQ(planRunName(two->plan), "gpipe p=8 m=2x8");
}

TEST(TokenSlices, AForwardPipelineOfSlicesTakesTheSumPlusPMinusOneLongest) {
  PlanSpec spec;
  spec.schedule = "gpipe";
  spec.stages = 4;
  spec.microbatches = 1;
  spec.uniform.fwdUs = 1000;
  spec.tokenSlices = "1024,512,512";
  spec.forwardOnly = true;
  const TokenSlicing s{2048, 0.5};
  const double t[] = {sliceScale(s, 0, 1024), sliceScale(s, 1024, 512), sliceScale(s, 1536, 512)};
  const double expected = (t[0] + t[1] + t[2] + 3 * *std::max_element(t, t + 3)) * 1e6;
  EXPECT_NEAR(static_cast<double>(test::simulateSpec(spec).makespan), expected,
              4.0);  // ns rounding
}

TEST(TokenSlices, BadValuesAreRefusedByName) {
  PlanSpec spec;
  spec.schedule = "gpipe";
  spec.tokenSlices = "1000,1000";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("add up to 2000, not the sequence's 2048"));
  spec.tokenSlices = "x";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--token-slices x: expected K, auto"));
  spec.tokenSlices = "4";
  spec.schedule = "1f1b";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("slices run through gpipe"));
}

}  // namespace
}  // namespace ps::runtime
