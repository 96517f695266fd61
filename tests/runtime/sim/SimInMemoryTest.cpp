// A simulated run built in memory (runtime/sim/SimRows.h), as the app shows it before it is
// saved, equals the run the file gives back once savePreview has written it: every column of
// every lane in the same order, memory, names, ranks, stages, layers and the run's own fields.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/run/RunPlan.h"
#include "runtime/sim/SimRows.h"
#include "tests/common/RunTraceCompare.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

struct Shape {
  const char* schedule;
  int stages, microbatches, chunks, steps;
  bool splitBackward;
};

class SimInMemory : public ::testing::TestWithParam<Shape> {};

TEST_P(SimInMemory, EqualsTheRunReadBackFromTheFile) {
  const Shape& shape = GetParam();
  RunPlanRequest request;
  request.spec.schedule = shape.schedule;
  request.spec.stages = shape.stages;
  request.spec.microbatches = shape.microbatches;
  request.spec.chunks = shape.chunks;
  request.spec.steps = shape.steps;
  request.spec.splitBackward = shape.splitBackward;
  request.spec.uniform.actMb = 3;
  request.write = false;
  auto simulated = runPlan(request, {});
  ASSERT_TRUE(simulated.ok()) << simulated.error();
  ASSERT_TRUE(simulated->sim.has_value());
  EXPECT_FALSE(simulated->runId.has_value());

  const trace::RunHeader header = simRunHeader(request, *simulated);
  const trace::RunTrace inMemory = simRunTrace(header, *simulated->sim, shape.steps);
  ASSERT_GT(inMemory.opCount(), 0u);
  PlanPreview preview;  // the simulation above, as the app holds it until it is saved
  preview.built = simulated->built;
  preview.header = header;
  preview.sim = std::make_shared<const SimResult>(std::move(*simulated->sim));

  test::TempDir dir;
  const std::string db = dir.file("runs.sqlite");
  std::int64_t begunId = -1;
  RunControl control;
  control.begun = [&](std::int64_t id) { begunId = id; };
  auto saved = savePreview(preview, {db}, control);
  ASSERT_TRUE(saved.ok()) << saved.error();
  ASSERT_EQ(saved->status, trace::RunStatus::Complete) << saved->message;
  ASSERT_TRUE(saved->runId.has_value());
  EXPECT_EQ(begunId, *saved->runId);
  saved->store.reset();

  trace::LoadOptions rows;
  rows.readCache = false;
  auto file = trace::loadRunFromFile(db, *saved->runId, rows);
  ASSERT_TRUE(file.ok()) << file.error();
  EXPECT_EQ(file->opCount(), inMemory.opCount());
  test::expectSameRun(inMemory, *file);
}

INSTANTIATE_TEST_SUITE_P(Plans, SimInMemory,
                         ::testing::Values(Shape{"1f1b", 4, 8, 1, 2, false},
                                           Shape{"interleaved-1f1b", 4, 8, 2, 3, false},
                                           Shape{"zb-h1", 4, 6, 1, 2, false},
                                           Shape{"1f1b", 3, 6, 1, 2, true},
                                           Shape{"gpipe", 2, 3, 1, 1, false}));

}  // namespace
}  // namespace ps::runtime
