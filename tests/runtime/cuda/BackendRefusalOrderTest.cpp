// The order of a model backend's refusals (checkModelRequest, shared by runPlan and pipescope-cli
// run): a plan feature the backend never runs, then the model's options, then the device
// (issue 32 §9: the CLI asked for the device first, so a machine without a GPU never said that
// --frozen-us or --token-slices are cpu/sim-only).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "runtime/cuda/CudaBackend.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::StartsWith;

BuiltPlan built(const PlanSpec& spec) {
  auto plan = buildPlan(spec);
  EXPECT_TRUE(plan.ok()) << plan.error();
  return plan.ok() ? std::move(*plan) : BuiltPlan{};
}

TEST(BackendRefusalOrder, AFeatureTheGpusNeverRunComesBeforeModelOptionsAndTheDevice) {
  RunPlanRequest r = test::tinyModelRun(Backend::Cuda, 2, 2, 1);
  r.spec.frozenUs = 5;
  const BuiltPlan frozen = built(r.spec);
  auto refused = checkModelRequest(Backend::Cuda, false, frozen, r.exec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), StartsWith("--frozen-us: the cuda backend "));
  // A bad model option too: the feature is still named first.
  r.exec.model.hidden = 0;
  refused = checkModelRequest(Backend::Cuda, false, frozen, r.exec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), StartsWith("--frozen-us: "));
  // The same plan runs on rank threads; as MPI processes it is refused for the same flag.
  r.exec.model.hidden = 8;
  EXPECT_TRUE(checkModelRequest(Backend::Cpu, false, frozen, r.exec).ok());
  refused = checkModelRequest(Backend::Cpu, true, frozen, r.exec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), StartsWith("--frozen-us: the cpu backend "));
}

TEST(BackendRefusalOrder, TokenSlicesOnCudaNameTheSlicesNotTheirLayout) {
  // The model's --seq (4) is not the plan's --seq-tokens: the cpu backend cannot lay the slices
  // out and says so; the cuda backend would not run slices at all, and says that.
  RunPlanRequest r = test::tinyModelRun(Backend::Cuda, 2, 2, 1);
  r.spec.schedule = "gpipe";
  r.spec.tokenSlices = "2";
  const BuiltPlan sliced = built(r.spec);
  auto refused = checkModelRequest(Backend::Cuda, false, sliced, r.exec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), StartsWith("--token-slices: the cuda backend runs micro-batches "
                                          "of one shape"));
  // runPlan says the same (it used to answer with the layout the cpu backend would need).
  test::TempDir dir;
  auto ran = runPlan(r, {dir.file("sliced.sqlite")});
  ASSERT_FALSE(ran.ok());
  EXPECT_THAT(ran.error(), StartsWith("--token-slices: the cuda backend"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("sliced.sqlite")));
}

TEST(BackendRefusalOrder, APlanCudaRunsIsRefusedForTheDeviceOnlyAfterTheModelOptions) {
  if (cudaAvailability().available()) GTEST_SKIP() << "a CUDA device is present";
  RunPlanRequest r = test::tinyModelRun(Backend::Cuda, 2, 2, 1);
  const BuiltPlan plain = built(r.spec);
  auto refused = checkModelRequest(Backend::Cuda, false, plain, r.exec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), StartsWith("no CUDA device ("));
  r.exec.model.hidden = 0;
  refused = checkModelRequest(Backend::Cuda, false, plain, r.exec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), ::testing::Not(StartsWith("no CUDA device")));
}

}  // namespace
}  // namespace ps::runtime
