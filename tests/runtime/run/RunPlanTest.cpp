// The one runtime entry point (runtime/run/RunPlan.h): each backend writes one run with the right
// source and status; a plan over its memory cap, a backend that cannot run here or a cancel before
// the start leave the file untouched; progress stages come in order; an executor override (the
// CLI's MPI processes) is what runs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <vector>

#include "kernels/ComputeDevice.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

RunPlanRequest request(Backend backend) {
  return test::tinyModelRun(backend, 2, 4, 2);
}

using test::runsIn;

class RunPlanBackends : public ::testing::TestWithParam<Backend> {};

TEST_P(RunPlanBackends, WritesOneRunWithTheBackendAsSource) {
  test::TempDir dir;
  const std::string db = dir.file("runs.sqlite");
  auto result = runPlan(request(GetParam()), {db});
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->status, trace::RunStatus::Complete) << result->message;
  ASSERT_TRUE(result->runId.has_value());
  ASSERT_TRUE(result->store.has_value());
  result->store.reset();  // close it, as a caller that is done does
  const auto runs = runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, *result->runId);
  EXPECT_EQ(runs[0].source, backendName(GetParam()));
  EXPECT_EQ(runs[0].status, trace::RunStatus::Complete);
  EXPECT_EQ(runs[0].name, result->name);
  if (GetParam() == Backend::Sim) {
    EXPECT_EQ(runs[0].name, "1f1b p=2 m=4 steps=2");
    EXPECT_TRUE(result->sim.has_value());
    EXPECT_THAT(runs[0].config_json, StartsWith("{\"schedule\":\"1f1b\""));
  } else {
    EXPECT_EQ(runs[0].name, "1f1b p=2 m=4 steps=2 cpu mlp");
    ASSERT_TRUE(result->exec.has_value());
    EXPECT_EQ(result->exec->stepLoss.size(), 2u);
    EXPECT_THAT(runs[0].config_json, StartsWith("{\"plan\":{\"schedule\":\"1f1b\""));
    EXPECT_THAT(runs[0].config_json, HasSubstr("\"backend\":\"cpu\""));
    EXPECT_THAT(runs[0].config_json, HasSubstr("\"dtype\":\"fp32\",\"sm_split\":false"));
  }
}

TEST_P(RunPlanBackends, APlanOverItsMemoryCapIsRefusedBeforeAnythingIsWritten) {
  test::TempDir dir;
  const std::string db = dir.file("capped.sqlite");
  RunPlanRequest r = request(GetParam());
  auto built = buildPlan(r.spec);
  ASSERT_TRUE(built.ok()) << built.error();
  built->cost.ranks.resize(2);
  built->cost.ranks[1].memoryCapacityBytes = 1000;  // far below either backend's bytes
  r.built = std::make_shared<const BuiltPlan>(std::move(*built));
  auto result = runPlan(r, {db});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error(), HasSubstr("rank 1 needs"));
  EXPECT_THAT(result.error(), HasSubstr("but its memory capacity is 1000 B (over by"));
  if (GetParam() != Backend::Sim) {
    EXPECT_THAT(result.error(), HasSubstr("(predicted for this model)"));
  }
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST_P(RunPlanBackends, CancelledBeforeTheStartWritesNothing) {
  test::TempDir dir;
  const std::string db = dir.file("cancelled.sqlite");
  std::atomic<bool> cancel{true};
  RunControl control;
  control.cancel = &cancel;
  auto result = runPlan(request(GetParam()), {db}, control);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->status, trace::RunStatus::Cancelled);
  EXPECT_FALSE(result->runId.has_value());
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST_P(RunPlanBackends, ProgressStagesArriveInOrder) {
  test::TempDir dir;
  std::vector<std::tuple<RunStage, int, int>> seen;
  RunControl control;
  control.progress = [&](RunStage stage, int done, int total) {
    seen.emplace_back(stage, done, total);
  };
  auto result = runPlan(request(GetParam()), {dir.file("progress.sqlite")}, control);
  ASSERT_TRUE(result.ok()) << result.error();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), std::make_tuple(RunStage::Plan, 0, 1));
  EXPECT_EQ(seen.back(), std::make_tuple(RunStage::Write, 1, 1));
  std::vector<RunStage> stages;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const auto [stage, done, total] = seen[i];
    EXPECT_LE(done, total);
    if (i > 0) {
      EXPECT_GE(static_cast<int>(stage), static_cast<int>(std::get<0>(seen[i - 1])));
    }
    if (stages.empty() || stages.back() != stage) stages.push_back(stage);
  }
  EXPECT_EQ(stages, (std::vector<RunStage>{RunStage::Plan, RunStage::Run, RunStage::Write}));
  if (GetParam() == Backend::Cpu) {  // one report per written step
    EXPECT_NE(std::find(seen.begin(), seen.end(), std::make_tuple(RunStage::Run, 1, 2)),
              seen.end());
    EXPECT_NE(std::find(seen.begin(), seen.end(), std::make_tuple(RunStage::Run, 2, 2)),
              seen.end());
  }
}

INSTANTIATE_TEST_SUITE_P(SimAndCpu, RunPlanBackends, ::testing::Values(Backend::Sim, Backend::Cpu),
                         [](const auto& p) { return std::string(backendName(p.param)); });

TEST(RunPlan, TheCpuBackendRefusesBf16AndSmSplitNamingTheFlag) {
  test::TempDir dir;
  const std::string db = dir.file("bf16.sqlite");
  RunPlanRequest r = request(Backend::Cpu);
  r.exec.dtype = kernels::DType::Bf16;
  auto bf16 = runPlan(r, {db});
  ASSERT_FALSE(bf16.ok());
  EXPECT_THAT(bf16.error(), StartsWith("--dtype bf16: "));
  r.exec.dtype = kernels::DType::Fp32;
  r.exec.smSplit = true;
  auto split = runPlan(r, {db});
  ASSERT_FALSE(split.ok());
  EXPECT_THAT(split.error(), StartsWith("--sm-split: "));
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(RunPlan, CudaWithoutADeviceIsRefusedBeforeTheFileIsTouched) {
  if (cudaAvailability().available()) GTEST_SKIP() << "a CUDA device is present";
  test::TempDir dir;
  const std::string db = dir.file("cuda.sqlite");
  auto result = runPlan(request(Backend::Cuda), {db});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error(), StartsWith("no CUDA device ("));
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(RunPlan, AnExecutorOverrideRunsInsteadOfTheBackendsOwn) {
  test::TempDir dir;
  const std::string db = dir.file("override.sqlite");
  RunPlanRequest r = request(Backend::Cpu);
  int agreed = 0;
  trace::TraceWriter* given = nullptr;
  std::size_t rankRows = 0;
  r.executor.agree = [&](const Status& mine) {
    ++agreed;
    return mine;
  };
  r.executor.run = [&](const Plan&, const OpGraph&, const CpuRunOptions& options,
                       trace::TraceWriter* writer,
                       const trace::RunHeader& header) -> Result<CpuRunResult> {
    given = writer;
    rankRows = header.ranks.size();
    EXPECT_EQ(options.model.layers, 2);  // the plan's
    CpuRunResult out;
    out.status = trace::RunStatus::Failed;
    out.message = "rank 1: boom";
    return out;
  };
  auto result = runPlan(r, {db});
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(agreed, 1);
  EXPECT_NE(given, nullptr);
  EXPECT_EQ(rankRows, 2u);
  EXPECT_EQ(result->status, trace::RunStatus::Failed);
  EXPECT_EQ(result->message, "rank 1: boom");
  ASSERT_TRUE(result->runId.has_value());
  result->store.reset();
  const auto runs = runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, trace::RunStatus::Failed);
  EXPECT_EQ(runs[0].status_message, "rank 1: boom");

  EXPECT_FALSE(result->setupFailed);

  // An executor that refuses to start (its setup error): a failed run saying why.
  r.executor.run = [](const Plan&, const OpGraph&, const CpuRunOptions&, trace::TraceWriter*,
                      const trace::RunHeader&) -> Result<CpuRunResult> {
    return Error{"the model does not fit"};
  };
  auto refused = runPlan(r, {db});
  ASSERT_TRUE(refused.ok()) << refused.error();
  EXPECT_EQ(refused->status, trace::RunStatus::Failed);
  EXPECT_TRUE(refused->setupFailed);
  EXPECT_EQ(refused->message, "the model does not fit");

  // A process that does not write (MPI ranks other than 0) gets no writer and touches no file.
  r.executor.run = [&](const Plan&, const OpGraph&, const CpuRunOptions&,
                       trace::TraceWriter* writer,
                       const trace::RunHeader&) -> Result<CpuRunResult> {
    given = writer;
    return CpuRunResult{};
  };
  const std::string none = dir.file("none.sqlite");
  r.write = false;
  auto quiet = runPlan(r, {none});
  ASSERT_TRUE(quiet.ok()) << quiet.error();
  EXPECT_EQ(given, nullptr);
  EXPECT_FALSE(quiet->runId.has_value());
  EXPECT_FALSE(std::filesystem::exists(none));
}

TEST(RunPlan, RunsAppendToAnOpenStore) {
  test::TempDir dir;
  const std::string db = dir.file("open.sqlite");
  auto store = trace::TraceStore::open(db, trace::TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  RunTarget target;
  target.store = &*store;
  RunPlanRequest r = request(Backend::Sim);
  r.name = "first";
  r.source = "torch-csv";
  auto first = runPlan(r, target);
  r.name = "second";
  r.source.clear();
  auto second = runPlan(r, target);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_FALSE(first->store.has_value());  // the caller's store, not one of its own
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].name, "first");
  EXPECT_EQ((*runs)[0].source, "torch-csv");
  EXPECT_EQ((*runs)[1].name, "second");
  EXPECT_EQ((*runs)[1].source, "sim");
}

TEST(RunPlan, ABadPlanIsAnErrorNamingTheFlag) {
  test::TempDir dir;
  const std::string db = dir.file("bad.sqlite");
  RunPlanRequest r = request(Backend::Sim);
  r.spec.steps = 0;
  auto result = runPlan(r, {db});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error(), HasSubstr("--steps must be positive"));
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(RunPlan, BackendNamesRoundTrip) {
  for (Backend b : {Backend::Sim, Backend::Cpu, Backend::Cuda})
    EXPECT_EQ(parseBackend(backendName(b)), b);
  EXPECT_FALSE(parseBackend("tpu").has_value());
}

}  // namespace
}  // namespace ps::runtime

namespace ps::runtime {
namespace {

// A schedule with its own V once ran silently with it while the knobs said another: the plan
// shown (chunks 3) was not the plan run (chunks 1).
TEST(BuildPlan, RefusesAChunkCountTheScheduleDoesNotRun) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.chunks = 3;
  auto built = buildPlan(spec);
  ASSERT_FALSE(built);
  EXPECT_NE(built.error().find("--chunks 3: 1f1b runs 1 chunk(s) per rank"), std::string::npos)
      << built.error();
  spec.schedule = "interleaved-1f1b";
  spec.chunks = 2;
  EXPECT_TRUE(buildPlan(spec)) << "a schedule that takes V";
  spec.schedule = "zb-v";
  EXPECT_TRUE(buildPlan(spec)) << "ZB-V's own two chunks, asked for";
  spec.chunks = 1;
  EXPECT_TRUE(buildPlan(spec)) << "the default leaves a schedule its own V";
}

// The refusal came only after the whole schedule was generated: ZB-V at p = 1149 took 9 s to
// say "--chunks 10" (the plan fuzzer's slow input), p = 4096 minutes. It is asked of a small
// plan first now, so the message comes at once whatever the size.
TEST(BuildPlan, RefusesAChunkCountBeforeGeneratingALargeSchedule) {
  PlanSpec spec;
  spec.schedule = "zb-v";
  spec.stages = 4096;
  spec.microbatches = 1;
  spec.chunks = 10;
  auto built = buildPlan(spec);
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error(),
            "--chunks 10: zb-v runs 2 chunk(s) per rank, not 10 (interleaved-1f1b and looped-bfs "
            "take V)");
}

}  // namespace
}  // namespace ps::runtime
