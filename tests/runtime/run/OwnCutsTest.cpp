// HetPipe's virtual workers (issue 35 §5): with --dp, every replica took the first replica's
// speed-aware cut, so a replica whose devices are ordered the other way ran its slow device with
// the most layers. --own-cuts partitions each replica for its own ranks.

#include <gtest/gtest.h>

#include <string>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/RunConfig.h"
#include "runtime/run/RunPlan.h"

namespace ps::runtime {
namespace {

// Two replicas of a 2-stage pipeline; replica 0 runs slow-fast (ranks 0, 1), replica 1 fast-slow
// (ranks 2, 3).
PlanSpec mirroredReplicas(bool ownCuts) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 2;
  spec.microbatches = 8;
  spec.layers = 12;
  spec.dataParallel = 2;
  spec.rankSpeed = {1, 3, 3, 1};
  spec.uniform.fwdUs = 10;
  spec.uniform.bwdUs = 20;
  spec.uniform.wgradUs = 10;
  spec.ownCuts = ownCuts;
  return spec;
}

int layersOf(const StagePlacement& st) {
  return st.lastLayer - st.firstLayer + 1;
}

std::int64_t stepNs(const BuiltPlan& built) {
  auto sim = simulate(built.plan, built.graph, built.cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? sim->makespan : -1;
}

TEST(OwnCuts, EachReplicaIsCutForItsOwnRanksAndTheStepIsShorter) {
  auto shared = buildPlan(mirroredReplicas(false));
  auto own = buildPlan(mirroredReplicas(true));
  ASSERT_TRUE(shared.ok()) << shared.error();
  ASSERT_TRUE(own.ok()) << own.error();
  // The first replica's cut gives its fast rank 1 three layers in four.
  const auto& first = own->plan.placement[0];
  EXPECT_EQ(layersOf(first[0]), 3);
  EXPECT_EQ(layersOf(first[1]), 9);
  // Shared: replica 1's slow rank 3 holds those 9 layers too. Own: the mirror image.
  EXPECT_EQ(layersOf(shared->plan.placement[1][1]), 9);
  EXPECT_EQ(layersOf(own->plan.placement[1][0]), 9);
  EXPECT_EQ(layersOf(own->plan.placement[1][1]), 3);
  // The slow rank with 9 layers set the shared plan's step; with own cuts no rank has more
  // than 3 slow layers' or 9 fast layers' work: the step is close to a third of it.
  const std::int64_t sharedStep = stepNs(*shared), ownStep = stepNs(*own);
  EXPECT_LT(ownStep * 2, sharedStep) << "own " << ownStep << " ns, shared " << sharedStep << " ns";
}

TEST(OwnCuts, ARunRerunsWithItsOwnCutsFromItsConfig) {
  auto built = buildPlan(mirroredReplicas(true));
  ASSERT_TRUE(built.ok()) << built.error();
  EXPECT_NE(built->configJson.find("\"own_cuts\":true"), std::string::npos) << built->configJson;
  auto request = requestFromConfigJson(built->configJson);
  ASSERT_TRUE(request.ok()) << request.error();
  EXPECT_TRUE(request->spec.ownCuts);
  auto again = buildPlan(request->spec);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->configJson, built->configJson);
  EXPECT_EQ(layersOf(again->plan.placement[1][0]), 9);
  EXPECT_EQ(stepNs(*again), stepNs(*built));
}

TEST(OwnCuts, NeedsReplicasAndIsRefusedWhereTwinStagesAverageGradients) {
  PlanSpec alone = mirroredReplicas(true);
  alone.dataParallel = 1;
  alone.rankSpeed = {1, 3};
  auto refused = buildPlan(alone);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().rfind("--own-cuts", 0), 0u) << refused.error();
  auto own = buildPlan(mirroredReplicas(true));
  ASSERT_TRUE(own.ok()) << own.error();
  // The cpu backend sums gradients layer by layer; the cuda backend stage by stage.
  EXPECT_TRUE(checkPlanFeatures(Backend::Cpu, false, own->plan, nullptr).ok());
  const Status procs = checkPlanFeatures(Backend::Cpu, true, own->plan, nullptr);
  EXPECT_TRUE(procs.ok()) << procs.error();
  const Status cuda = checkPlanFeatures(Backend::Cuda, false, own->plan, nullptr);
  ASSERT_FALSE(cuda.ok());
  EXPECT_EQ(cuda.error().rfind("--own-cuts", 0), 0u) << cuda.error();
}

// Each replica's cut is its own, but the model is the same: summing each layer's gradients over
// the replicas trains exactly what one cut for both trains (same losses, same weights).
TEST(OwnCuts, ReplicasCutTheirOwnWayTrainTheSameModelOnCpuThreads) {
  const auto train = [](bool ownCuts) {
    PlanSpec spec = mirroredReplicas(ownCuts);
    spec.steps = 3;
    auto built = buildPlan(spec);
    EXPECT_TRUE(built.ok()) << built.error();
    CpuRunOptions options;
    options.model.hidden = 8;
    options.model.seq = 2;
    options.model.microbatchSize = 2;
    options.optimizer.kind = OptimizerKind::Adam;
    options.optimizer.lr = 0.01f;
    auto run = runOnCpuThreads(built->plan, built->graph, options, nullptr);
    EXPECT_TRUE(run.ok()) << run.error();
    return std::move(*run);
  };
  const CpuRunResult shared = train(false), own = train(true);
  ASSERT_EQ(own.stepLoss.size(), 3u);
  ASSERT_EQ(shared.stepLoss.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)  // a mean over micro-batches in the order they came
    EXPECT_NEAR(own.stepLoss[k], shared.stepLoss[k], 1e-12 * shared.stepLoss[k]);
  EXPECT_LT(own.stepLoss.back(), own.stepLoss.front());
  ASSERT_EQ(own.finalParams.size(), shared.finalParams.size());
  EXPECT_EQ(own.finalParams, shared.finalParams);
}

}  // namespace
}  // namespace ps::runtime
