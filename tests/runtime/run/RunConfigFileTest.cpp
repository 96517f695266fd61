// A run written to a file by runPlan reads back (requestFromConfigJson of its config_json) to a
// request that reruns to the same config.

#include <gtest/gtest.h>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/RunConfigTestUtil.h"

namespace ps::runtime {
namespace {

using namespace test_config;
using test::runsIn;

TEST(RunConfig, ARunReadFromItsFileRerunsToTheSameConfig) {
  test::TempDir dir;
  const std::string db = dir.file("runs.sqlite");
  RunPlanRequest r = baseRequest();
  r.spec.layers = 12;
  r.spec.boundaries = "2,5,9";
  r.spec.uniform.linkGbps = 10;
  r.spec.uniform.actMb = 1;
  r.spec.steps = 2;
  auto first = runPlan(r, {db});
  ASSERT_TRUE(first.ok()) << first.error();
  first->store.reset();
  // A torch-csv import goes through runPlan too (ImportCommand.cpp).
  RunPlanRequest csv;
  csv.spec.scheduleFile = kCsv;
  csv.source = "torch-csv";
  ASSERT_TRUE(runPlan(csv, {db}).ok());

  auto runs = runsIn(db);
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    auto parsed = requestFromConfigJson(run.config_json);
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    auto again = runPlan(*parsed, {db});
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_EQ(again->status, trace::RunStatus::Complete) << again->message;
  }
  runs = runsIn(db);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[2].config_json, runs[0].config_json);
  EXPECT_EQ(runs[3].config_json, runs[1].config_json);
  EXPECT_EQ(runs[2].name, runs[0].name);
}

TEST(RunConfig, ACpuRunReadFromItsFileRerunsToTheSameConfig) {
  test::TempDir dir;
  const std::string db = dir.file("cpu.sqlite");
  RunPlanRequest r = modelRequest(Backend::Cpu);
  r.spec.stages = 2;
  r.spec.microbatches = 2;
  r.exec.model.hidden = 8;
  r.exec.model.seq = 4;
  r.exec.model.heads = 2;
  r.exec.linkGbps = 50;
  auto first = runPlan(r, {db});
  ASSERT_TRUE(first.ok()) << first.error();
  first->store.reset();
  auto runs = runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  auto parsed = requestFromConfigJson(runs[0].config_json);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->exec.linkGbps, 50.0);
  ASSERT_TRUE(runPlan(*parsed, {db}).ok());
  runs = runsIn(db);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].config_json, runs[0].config_json);
}

}  // namespace
}  // namespace ps::runtime
