// The long searches stop on their cancel flag (issue 30, items 12 and 17): --mapping auto's
// search polls it before every simulation (it ran on 120 s after Ctrl-C at p64 m256 on 8x8),
// buildPlan and runPlan pass it on (the run ends 'cancelled'), and explore both polls it and
// refuses, before building anything, a sweep whose summed size is past kMaxExploreActions.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "runtime/run/Explore.h"
#include "runtime/run/MappingSearch.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(SearchCancel, TheMappingSearchStopsAtTheNextEvaluationOnceCancelled) {
  std::atomic<bool> cancel{false};
  int calls = 0;
  const MappingCost cost = [&](const std::vector<int>&) -> Result<std::int64_t> {
    if (++calls == 5) cancel = true;  // e.g. Ctrl-C during the fifth simulation
    return 100 - calls;
  };
  // 64 ranks on 8 nodes: thousands of evaluations when it runs to the end.
  auto found = searchDeviceMapping(64, 8, cost, &cancel);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error(), "cancelled after 5 mappings");
  EXPECT_EQ(calls, 5);
}

TEST(SearchCancel, EvaluationsOfASearchAreCountedWithoutSimulating) {
  // 4 ranks on 2 nodes of 2: the rank order, 3 ways to share them out, then 6 swaps.
  EXPECT_EQ(mappingSearchEvaluations(4, 2), 1 + 3 + 6);
  EXPECT_EQ(mappingSearchEvaluations(4, 0), 1 + 6);
}

PlanSpec searchedPlan() {
  PlanSpec spec;
  spec.stages = 16;
  spec.microbatches = 32;
  spec.topology = "4x4";
  spec.interGbps = 10;
  spec.uniform.actMb = 4;
  spec.uniform.linkGbps = 100;
  spec.mapping = "auto";
  return spec;
}

TEST(SearchCancel, RunPlanEndsCancelledWhenCancelledDuringTheMappingSearch) {
  std::atomic<bool> cancel{true};  // already set: the search stops before its first simulation
  auto built = buildPlan(searchedPlan(), &cancel);
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.error(), HasSubstr("cancelled"));
  test::TempDir dir;
  RunPlanRequest request;
  request.spec = searchedPlan();
  std::atomic<bool> later{false};
  RunControl control;
  control.cancel = &later;
  // Set once the plan stage has begun: the build (the search) sees it, not the check before.
  control.progress = [&](RunStage stage, int done, int) {
    if (stage == RunStage::Plan && done == 0) later = true;
  };
  auto run = runPlan(request, {dir.file("c.sqlite")}, control);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->status, trace::RunStatus::Cancelled);
  EXPECT_EQ(run->message, "cancelled while building the plan");
  EXPECT_FALSE(run->runId.has_value());
}

// The sweep: p = 256, m up to 4096, V up to 8, every synchronous schedule.
TEST(SearchCancel, ExploreRefusesASweepPastItsLimitBeforeBuildingAny) {
  ExploreSpec spec;
  spec.base.stages = 256;
  spec.microbatches = {512, 1024, 2048, 4096};
  spec.chunks = {1, 2, 4, 8};
  auto result = explorePlans(spec);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error(), HasSubstr("explore: the sweep would simulate about "));
  EXPECT_THAT(result.error(), HasSubstr("limit 2.0e8): narrow it with fewer or smaller "
                                        "--microbatches, --chunks, --schedules or --dp"));
  // A mapping search per candidate multiplies it: a small sweep with auto is refused too.
  ExploreSpec searched;
  searched.base = searchedPlan();
  searched.base.stages = 64;
  searched.base.topology = "8x8";
  searched.base.mapping.clear();
  searched.schedules = {"1f1b"};
  searched.microbatches = {256};
  searched.mappings = {"auto"};
  auto refused = explorePlans(searched);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("1 with a --mappings auto search"));
  EXPECT_THAT(refused.error(), HasSubstr("or drop auto from --mappings"));
}

TEST(SearchCancel, ExploreStopsOnItsCancelFlagAndReportsProgress) {
  ExploreSpec spec;
  spec.base.stages = 4;
  spec.schedules = {"gpipe", "1f1b", "zb-h1"};
  spec.microbatches = {8, 16};
  std::atomic<bool> cancel{false};
  std::vector<std::pair<int, int>> seen;
  auto result = explorePlans(spec, &cancel, [&](int done, int total) {
    seen.emplace_back(done, total);
    if (done == 2) cancel = true;
  });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), "explore cancelled");
  EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{0, 6}, {1, 6}, {2, 6}}));
  cancel = false;
  seen.clear();
  auto whole =
      explorePlans(spec, &cancel, [&](int done, int total) { seen.emplace_back(done, total); });
  ASSERT_TRUE(whole.ok()) << whole.error();
  ASSERT_EQ(seen.size(), 7u);
  EXPECT_EQ(seen.back(), std::make_pair(6, 6));
}

}  // namespace
}  // namespace ps::runtime
