// TeraPipe's token slices and DynaPipe's variable micro-batches trained on the cpu backend: a
// sequence cut into slices (a causal prefix cache per layer) trains exactly as the whole
// sequence does, and the same sequences grouped DynaPipe's way or packed into rows train the
// same model (padding excluded from attention and loss). Refusals name the flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

RunPlanRequest transformerRun(int stages, int steps) {
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, stages, 2, steps);
  r.spec.schedule = "gpipe";
  r.spec.layers = 4;
  r.exec.model.block = BlockType::Transformer;
  r.exec.model.seq = 8;
  r.spec.seqTokens = 8;
  return r;
}

RunPlanResult runOk(const RunPlanRequest& r, const std::string& file) {
  auto ran = runPlan(r, {file});
  EXPECT_TRUE(ran.ok()) << ran.error();
  if (!ran.ok()) return {};
  EXPECT_EQ(ran->status, trace::RunStatus::Complete) << ran->message;
  return std::move(*ran);
}

// The mean loss of the last three steps below the first three's (each step has new data).
void expectLearns(const std::vector<double>& loss) {
  ASSERT_GE(loss.size(), 6u);
  const std::size_t n = loss.size();
  EXPECT_LT(loss[n - 1] + loss[n - 2] + loss[n - 3], loss[0] + loss[1] + loss[2]) << "it learns";
}

void expectSameTraining(const RunPlanResult& a, const RunPlanResult& b, int steps) {
  ASSERT_TRUE(a.exec && b.exec);
  ASSERT_EQ(a.exec->stepLoss.size(), static_cast<std::size_t>(steps));
  ASSERT_EQ(b.exec->stepLoss.size(), static_cast<std::size_t>(steps));
  for (int i = 0; i < steps; ++i)
    EXPECT_NEAR(a.exec->stepLoss[i], b.exec->stepLoss[i], 1e-5 * std::abs(b.exec->stepLoss[i]))
        << "step " << i;
  ASSERT_EQ(a.exec->finalParams.size(), b.exec->finalParams.size());
  for (std::size_t i = 0; i < b.exec->finalParams.size(); ++i)
    ASSERT_NEAR(a.exec->finalParams[i], b.exec->finalParams[i], 2e-5) << "parameter " << i;
}

TEST(TokenTraining, SlicesTrainExactlyAsTheWholeSequence) {
  test::TempDir dir;
  RunPlanRequest sliced = transformerRun(2, 12);
  sliced.spec.tokenSlices = "3,3,2";
  RunPlanResult s = runOk(sliced, dir.file("sliced.sqlite"));
  const RunPlanResult whole = runOk(transformerRun(2, 12), dir.file("whole.sqlite"));
  expectSameTraining(s, whole, 12);
  expectLearns(s.exec->stepLoss);
  // Every slice ran on both stages: 2 sequences × 3 slices of forwards per rank and step.
  auto loaded = trace::loadRun(*s.store, *s.runId);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  int forwards = 0;
  for (OpKind k : loaded->ranks[1].lane(trace::Lane::Compute).kind)
    forwards += k == OpKind::F;
  EXPECT_EQ(forwards, 2 * 3 * 12);
}

RunPlanRequest sequencesRun(const std::string& microbatching) {
  RunPlanRequest r = transformerRun(2, 12);
  r.spec.microbatches.reset();
  r.spec.seqLengths = "3,8,2,5,7,1,4,6,8,2";
  r.spec.microbatchTokens = 16;
  r.spec.microbatching = microbatching;
  return r;
}

TEST(TokenTraining, GroupedOrPackedTheSameSequencesTrainTheSameModel) {
  test::TempDir dir;
  const RunPlanResult dp = runOk(sequencesRun("dp"), dir.file("dp.sqlite"));
  const RunPlanResult packed = runOk(sequencesRun("packed"), dir.file("packed.sqlite"));
  ASSERT_TRUE(dp.built && packed.built);
  EXPECT_NE(dp.built->plan.numMicrobatches(), packed.built->plan.numMicrobatches())
      << "two different micro-batchings of the ten sequences";
  expectSameTraining(dp, packed, 12);
  expectLearns(dp.exec->stepLoss);
}

TEST(TokenTraining, RefusalsNameTheFlags) {
  test::TempDir dir;
  RunPlanRequest r = sequencesRun("dp");
  r.exec.model.seq = 4;
  auto refused = runPlan(r, {dir.file("x.sqlite")});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--seq-lengths: the model trains sequences of --seq 4 "
                                         "tokens, the plan cuts --seq-tokens 8"));
  RunPlanRequest gpu = transformerRun(2, 1);
  gpu.spec.tokenSlices = "4,4";
  gpu.backend = Backend::Cuda;
  refused = runPlan(gpu, {dir.file("x.sqlite")});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(),
              HasSubstr("--token-slices: the cuda backend runs micro-batches of one shape"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.sqlite")));
}

}  // namespace
}  // namespace ps::runtime
