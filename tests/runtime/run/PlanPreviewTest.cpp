// A simulated run shown before it is saved (runtime/run/RunPlan.h: previewPlan, then savePreview):
// the preview is, op for op, what runPlan writes for the same request; saving it writes that run;
// a cancel or a refusal writes nothing; a simulation the caller made itself (benches, tests) is
// saved through the same writer.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "runtime/run/RunPlan.h"
#include "tests/common/RunTraceCompare.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

struct Shape {
  const char* schedule;
  int stages, microbatches, chunks, steps;
  bool splitBackward;
};

RunPlanRequest simRequest(const Shape& shape) {
  RunPlanRequest request;
  request.spec.schedule = shape.schedule;
  request.spec.stages = shape.stages;
  request.spec.microbatches = shape.microbatches;
  request.spec.chunks = shape.chunks;
  request.spec.steps = shape.steps;
  request.spec.splitBackward = shape.splitBackward;
  request.spec.uniform.actMb = 3;
  return request;
}

trace::RunTrace loadFrom(const std::string& db, std::int64_t id) {
  trace::LoadOptions rows;
  rows.readCache = false;
  auto run = trace::loadRunFromFile(db, id, rows);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : trace::RunTrace{};
}

class PlanPreviewShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(PlanPreviewShapes, EqualsWhatRunPlanWritesAndSavesAsThatRun) {
  const RunPlanRequest request = simRequest(GetParam());
  auto preview = previewPlan(request, {}, -5);
  ASSERT_TRUE(preview.ok()) << preview.error();
  ASSERT_NE(preview->trace, nullptr);
  ASSERT_NE(preview->sim, nullptr);
  EXPECT_EQ(preview->trace->info.id, -5);  // the caller's id until it is saved
  EXPECT_EQ(preview->header.info.name, planRunName(preview->built->plan));
  ASSERT_GT(preview->trace->opCount(), 0u);

  test::TempDir dir;
  const std::string direct = dir.file("direct.sqlite");
  auto ran = runPlan(request, {direct});
  ASSERT_TRUE(ran.ok()) << ran.error();
  ASSERT_EQ(ran->status, trace::RunStatus::Complete) << ran->message;
  ran->store.reset();
  trace::RunTrace written = loadFrom(direct, *ran->runId);
  written.info.created_utc = preview->trace->info.created_utc;  // made a moment apart
  EXPECT_EQ(written.opCount(), preview->trace->opCount());
  test::expectSameRun(*preview->trace, written);

  const std::string later = dir.file("later.sqlite");
  std::int64_t begunId = -1;
  RunControl control;
  control.begun = [&](std::int64_t id) { begunId = id; };
  auto saved = savePreview(*preview, {later}, control);
  ASSERT_TRUE(saved.ok()) << saved.error();
  ASSERT_EQ(saved->status, trace::RunStatus::Complete) << saved->message;
  ASSERT_TRUE(saved->runId.has_value());
  EXPECT_EQ(begunId, *saved->runId);
  EXPECT_EQ(saved->name, preview->header.info.name);
  saved->store.reset();
  test::expectSameRun(*preview->trace, loadFrom(later, *saved->runId));
}

INSTANTIATE_TEST_SUITE_P(Plans, PlanPreviewShapes,
                         ::testing::Values(Shape{"1f1b", 4, 8, 1, 2, false},
                                           Shape{"interleaved-1f1b", 4, 8, 2, 3, false},
                                           Shape{"zb-h1", 4, 6, 1, 2, false},
                                           Shape{"gpipe", 2, 3, 1, 1, false}));

TEST(PlanPreview, ACancelWhileSimulatingGivesNoPreviewAndWritesNothing) {
  std::atomic<bool> cancel{false};
  RunControl control;
  control.cancel = &cancel;
  control.progress = [&](RunStage stage, int done, int) {
    if (stage == RunStage::Run && done == 0) cancel = true;
  };
  auto preview = previewPlan(simRequest({"1f1b", 4, 8, 1, 2, false}), control);
  ASSERT_FALSE(preview.ok());
  EXPECT_EQ(preview.error(), "cancelled while simulating");
}

TEST(PlanPreview, ASaveCancelledBeforeItBeganLeavesNoFile) {
  auto preview = previewPlan(simRequest({"1f1b", 2, 4, 1, 1, false}));
  ASSERT_TRUE(preview.ok()) << preview.error();
  test::TempDir dir;
  const std::string db = dir.file("never.sqlite");
  std::atomic<bool> cancel{true};
  RunControl control;
  control.cancel = &cancel;
  auto saved = savePreview(*preview, {db}, control);
  ASSERT_TRUE(saved.ok()) << saved.error();
  EXPECT_EQ(saved->status, trace::RunStatus::Cancelled);
  EXPECT_FALSE(saved->runId.has_value());
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(PlanPreview, APlanOverItsMemoryCapIsRefusedAsRunPlanRefusesIt) {
  RunPlanRequest request = simRequest({"1f1b", 2, 4, 1, 1, false});
  auto built = buildPlan(request.spec);
  ASSERT_TRUE(built.ok()) << built.error();
  built->cost.ranks.resize(2);
  built->cost.ranks[1].memoryCapacityBytes = 1000;
  request.built = std::make_shared<const BuiltPlan>(std::move(*built));
  auto preview = previewPlan(request);
  ASSERT_FALSE(preview.ok());
  EXPECT_THAT(preview.error(), HasSubstr("but its memory capacity is 1000 B (over by"));
  test::TempDir dir;
  auto ran = runPlan(request, {dir.file("x.sqlite")});
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(ran.error(), preview.error());
}

TEST(PlanPreview, ASimulationMadeElsewhereIsSavedThroughTheSameWriter) {
  // Benches and tests that simulate a plan themselves save it with previewOf + savePreview.
  RunPlanRequest request = simRequest({"zb-h1", 4, 6, 1, 2, false});
  auto built = buildPlan(request.spec);
  ASSERT_TRUE(built.ok()) << built.error();
  auto sim = simulate(built->plan, built->graph, built->cost);
  ASSERT_TRUE(sim.ok()) << sim.error();
  request.built = std::make_shared<const BuiltPlan>(std::move(*built));
  request.name = "mine";
  const PlanPreview preview = previewOf(request, std::move(*sim));
  EXPECT_EQ(preview.header.info.name, "mine");
  EXPECT_EQ(preview.header.info.config_json, request.built->configJson);
  test::TempDir dir;
  const std::string db = dir.file("mine.sqlite");
  auto saved = savePreview(preview, {db});
  ASSERT_TRUE(saved.ok()) << saved.error();
  ASSERT_EQ(saved->status, trace::RunStatus::Complete) << saved->message;
  saved->store.reset();
  test::expectSameRun(*preview.trace, loadFrom(db, *saved->runId));
}

}  // namespace
}  // namespace ps::runtime
