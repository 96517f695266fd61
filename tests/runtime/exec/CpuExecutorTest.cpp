// The cpu backend trains the real model under every synchronous schedule and must land on the
// unpipelined model's weights and losses; it records what happened and fails or stops cleanly.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/ReferenceTrainer.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ExecutorTestUtil.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

using Case = test::ScheduleCase;
using test::maxRelError;

ModelConfig smallModel(BlockType block = BlockType::Mlp) {
  ModelConfig c;
  c.block = block;
  c.hidden = 8;
  c.seq = 4;
  c.microbatchSize = 2;
  c.heads = 2;
  c.ffnMultiplier = 2;
  c.seed = 7;
  return c;
}

BuiltPlan build(const Case& c, int steps, int layersPerStage = 1) {
  PlanSpec spec;
  spec.schedule = c.schedule;
  spec.stages = c.p;
  spec.microbatches = c.m;
  spec.chunks = c.v;
  spec.dataParallel = c.dp;
  spec.steps = steps;
  auto probe = buildPlan(spec);
  EXPECT_TRUE(probe.ok()) << c.schedule << ": " << probe.error();
  spec.layers = probe->plan.numStages * layersPerStage;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << c.schedule << ": " << built.error();
  return std::move(*built);
}

// Trains `c` on cpu threads and the same model unpipelined: the step losses agree within 1e-5
// (and the final weights, unless only the losses are asked for). Returns the run's losses.
std::vector<double> expectTheUnpipelinedModel(const Case& c, int steps, int layersPerStage,
                                              const CpuRunOptions& options, bool weightsToo) {
  const BuiltPlan built = build(c, steps, layersPerStage);
  auto run = runOnCpuThreads(built.plan, built.graph, options, nullptr);
  EXPECT_TRUE(run.ok()) << run.error();
  if (!run.ok()) return {};
  EXPECT_EQ(run->status, trace::RunStatus::Complete) << run->message;
  ModelConfig whole = options.model;
  whole.layers = built.plan.numLayers;
  auto ref = referenceTrain(whole, c.m, steps, options.optimizer);
  EXPECT_TRUE(ref.ok()) << ref.error();
  if (!ref.ok()) return {};
  EXPECT_EQ(run->stepLoss.size(), ref->losses.size());
  for (std::size_t k = 0; k < ref->losses.size() && k < run->stepLoss.size(); ++k)
    EXPECT_NEAR(run->stepLoss[k], ref->losses[k], 1e-5 * std::fabs(ref->losses[k]))
        << c.schedule << " step " << k;
  if (weightsToo) {
    EXPECT_EQ(run->finalParams.size(), ref->params.size());
    if (run->finalParams.size() == ref->params.size()) {
      EXPECT_LE(maxRelError(run->finalParams, ref->params), 1e-5);
    }
  }
  return {run->stepLoss.begin(), run->stepLoss.end()};
}

class SynchronousSchedules : public ::testing::TestWithParam<Case> {};

TEST_P(SynchronousSchedules, MatchTheUnpipelinedModel) {
  CpuRunOptions options;
  options.model = smallModel();
  options.optimizer.kind = OptimizerKind::Adam;
  options.optimizer.lr = 0.01f;
  expectTheUnpipelinedModel(GetParam(), 3, 1, options, true);
}

INSTANTIATE_TEST_SUITE_P(Cpu, SynchronousSchedules,
                         ::testing::Values(Case{"gpipe", 2, 4, 1}, Case{"1f1b", 3, 4, 1},
                                           Case{"interleaved-1f1b", 2, 4, 2},
                                           Case{"looped-bfs", 2, 3, 2}, Case{"zb-h1", 2, 4, 1},
                                           Case{"zb-h2", 2, 4, 1}, Case{"zb-v", 2, 4, 2},
                                           Case{"chimera", 2, 4, 1}, Case{"dualpipe-v", 2, 4, 2},
                                           Case{"bitpipe", 2, 4, 2},
                                           // DAPPLE: 2 and 3 replicas all-reduce their gradients
                                           Case{"1f1b", 2, 4, 1, 2}, Case{"gpipe", 2, 6, 1, 3}),
                         test::ScheduleCaseName());

// The spiking block (leaky integrate-and-fire neurons, surrogate gradient through time) trains
// pipelined exactly as unpipelined, with the backward split (zb-h1) too, and its loss falls.
TEST(CpuExecutor, ASpikingModelTrainsPipelinedAsUnpipelined) {
  CpuRunOptions options;
  options.model = smallModel(BlockType::Spiking);
  options.optimizer.kind = OptimizerKind::Adam;
  options.optimizer.lr = 0.02f;
  for (const Case& c : {Case{"1f1b", 2, 4, 1}, Case{"zb-h1", 2, 4, 1}}) {
    const std::vector<double> losses = expectTheUnpipelinedModel(c, 6, 2, options, false);
    ASSERT_FALSE(losses.empty()) << c.schedule;
    EXPECT_LT(losses.back(), losses.front()) << c.schedule;
  }
}

// The mixture-of-experts block (top-2 of 4 experts, capacity 1.25: some tokens dropped) trains
// pipelined as unpipelined, with the backward split too, and its loss falls.
TEST(CpuExecutor, AMixtureOfExpertsModelTrainsPipelinedAsUnpipelined) {
  CpuRunOptions options;
  options.model = smallModel(BlockType::Moe);
  options.optimizer.kind = OptimizerKind::Adam;
  options.optimizer.lr = 0.01f;
  for (const Case& c : {Case{"gpipe", 2, 4, 1}, Case{"zb-h1", 2, 4, 1}, Case{"1f1b", 2, 4, 1, 2}}) {
    const std::vector<double> losses = expectTheUnpipelinedModel(c, 6, 2, options, true);
    ASSERT_FALSE(losses.empty()) << c.schedule;
    EXPECT_LT(losses.back(), losses.front()) << c.schedule;
  }
}

// The graph block (GNNPipe): a micro-batch is a chunk of a power-law graph and a neighbour in
// another chunk is read from the layer's historical embeddings. Every synchronous schedule runs
// a stage's forwards in chunk order, as the unpipelined model does, so each chunk reads the same
// history: the same losses and weights. The edges matter: without them the losses differ.
TEST(CpuExecutor, AGraphModelTrainsPipelinedAsItsChunksInOrder) {
  CpuRunOptions options;
  options.model = smallModel(BlockType::Gnn);
  options.optimizer.kind = OptimizerKind::Adam;
  options.optimizer.lr = 0.01f;
  std::vector<double> linked;
  for (const Case& c : {Case{"gpipe", 2, 4, 1}, Case{"1f1b", 2, 4, 1}, Case{"zb-h1", 2, 4, 1},
                        Case{"interleaved-1f1b", 2, 4, 2}}) {
    linked = expectTheUnpipelinedModel(c, 4, 2, options, true);
    ASSERT_FALSE(linked.empty()) << c.schedule;
    EXPECT_LT(linked.back(), linked.front()) << c.schedule;
  }
  options.model.graphLinks = 0;
  const std::vector<double> alone =
      expectTheUnpipelinedModel({"1f1b", 2, 4, 1}, 4, 2, options, false);
  ASSERT_EQ(alone.size(), linked.size());
  EXPECT_GT(std::fabs(alone[1] - linked[1]), 1e-4);
}

TEST(CpuExecutor, RecordsOpsMemoryAndLossPerStep) {
  test::TempDir dir;
  const BuiltPlan built = build({"1f1b", 2, 4, 1}, 2, 2);
  CpuRunOptions options;
  options.model = smallModel(BlockType::Transformer);
  std::vector<int> written;
  options.onStepWritten = [&](int step) { written.push_back(step); };
  std::vector<double> stepLoss;
  const auto loaded = test::recordedRun(dir, "cpu", 2, [&](trace::TraceWriter* writer) {
    auto run = runOnCpuThreads(built.plan, built.graph, options, writer);
    if (run.ok()) stepLoss = run->stepLoss;
    return run;
  });
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(written, (std::vector<int>{0, 1}));
  // Per step and rank: 4 F + 4 B + 1 OPT; sends and receives between the two ranks.
  EXPECT_EQ(loaded->ranks[0].lane(trace::Lane::Compute).size(), 2u * 9u);
  EXPECT_EQ(loaded->ranks[0].lane(trace::Lane::Send).size(), 2u * 4u);
  EXPECT_EQ(loaded->ranks[1].lane(trace::Lane::Recv).size(), 2u * 4u);
  EXPECT_EQ(loaded->ranks[1].lane(trace::Lane::Send).size(), 2u * 4u);
  EXPECT_GT(loaded->ranks[0].lane(trace::Lane::Send).bytes[0], 0);
  EXPECT_GT(loaded->ranks[0].memory.size(), 4u);
  const auto a = trace::analyzeRun(*loaded);
  ASSERT_TRUE(a.metrics.count("loss"));
  ASSERT_FALSE(stepLoss.empty());
  EXPECT_NEAR(a.metrics.at("loss"), stepLoss.back(), 1e-12);
  EXPECT_GT(*a.ranks[0].peak_memory_bytes, 0);
  EXPECT_GT(*a.step_time_ns, 0);
}

TEST(CpuExecutor, ARankThatThrowsFailsTheRunWithItsMessage) {
  const BuiltPlan built = build({"1f1b", 3, 6, 1}, 2);
  CpuRunOptions options;
  options.model = smallModel();
  options.beforeAction = [](int rank, const Action& a) {
    if (rank == 1 && a.kind == OpKind::B && a.microbatch == 2)
      throw std::runtime_error("disk on fire");
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto run = runOnCpuThreads(built.plan, built.graph, options, nullptr);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->status, trace::RunStatus::Failed);
  EXPECT_THAT(run->message, HasSubstr("rank 1: 1B2: disk on fire"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(CpuExecutor, CancelStopsPromptly) {
  const BuiltPlan built = build({"gpipe", 2, 4, 1}, 1000);
  CpuRunOptions options;
  options.model = smallModel();
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  std::chrono::steady_clock::time_point cancelledAt;
  options.onStepWritten = [&](int step) {
    if (step == 1) {
      cancel = true;
      cancelledAt = std::chrono::steady_clock::now();
    }
  };
  auto run = runOnCpuThreads(built.plan, built.graph, options, nullptr);
  const auto stopped = std::chrono::steady_clock::now();
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->status, trace::RunStatus::Cancelled);
  EXPECT_LT(run->stepsWritten, 1000);
  EXPECT_LT(stopped - cancelledAt, std::chrono::milliseconds(200));
}

}  // namespace
}  // namespace ps::runtime
