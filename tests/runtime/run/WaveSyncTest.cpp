// HetPipe's wave-synchronous parallel (--staleness D, issue 35 item 5): --dp replicas (virtual
// workers) step on their own gradients plus the other replicas' of D steps before. Simulated,
// the exchange of step k runs beside steps k + 1 .. k + D and the step cadence drops to the
// compute's; trained on cpu threads, D = 0 is the all-reduce bit for bit, the weights do not
// depend on the threads' timing, and a replica D steps or more away from every other trains as a
// lone pipeline on its own micro-batches.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/plan/Validator.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

struct WaveShape {
  int p, m, dp;
};

PlanSpec replicas(const WaveShape& shape, int staleness, double paramMb = 4) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = shape.p;
  spec.microbatches = shape.m;
  spec.dataParallel = shape.dp;
  spec.steps = 6;
  spec.uniform.fwdUs = 100;
  spec.uniform.bwdUs = 200;
  spec.uniform.paramMb = paramMb;
  spec.uniform.linkGbps = 100;
  spec.staleness = staleness;
  return spec;
}

SimResult simulated(const PlanSpec& spec) {
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  auto sim = simulate(built->plan, built->graph, built->cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? std::move(*sim) : SimResult{};
}

// Mean time between the starts of steps 1 .. S − 1 (step 0 fills the pipeline).
double cadenceNs(const SimResult& sim, int steps) {
  std::vector<std::int64_t> start(static_cast<std::size_t>(steps), INT64_MAX);
  for (const SimRecord& r : sim.records)
    if (r.kind == OpKind::F) start[r.step] = std::min(start[r.step], r.start_ns);
  return static_cast<double>(start[steps - 1] - start[1]) / (steps - 2);
}

class WaveSync : public ::testing::TestWithParam<WaveShape> {};

TEST_P(WaveSync, TheExchangeRunsBesideTheNextStepAndEachUpdateWaitsForItsOwn) {
  const WaveShape shape = GetParam();
  const double computeOnly = cadenceNs(simulated(replicas(shape, 0, 1e-6)), 6);
  const double allReduce = cadenceNs(simulated(replicas(shape, 0)), 6);
  const SimResult wave = simulated(replicas(shape, 1));
  const double waveCadence = cadenceNs(wave, 6);
  ASSERT_GT(computeOnly, 0);
  // The all-reduce adds its exchange to every step; one step of staleness hides it.
  EXPECT_GT(allReduce, computeOnly * 1.05);
  EXPECT_LT(waveCadence, allReduce);
  EXPECT_LE(waveCadence, computeOnly * 1.01) << "all-reduce " << allReduce;
  // Each optimizer step's update starts once the rank's exchanges of the step before ended.
  std::map<std::pair<int, int>, std::int64_t> exchangedBy;  // (rank, step) -> last AR end
  int exchanges = 0;
  for (const SimRecord& r : wave.records)
    if (r.kind == OpKind::AR) {
      auto& end = exchangedBy[{r.rank, r.step}];
      end = std::max(end, r.end_ns);
      ++exchanges;
    }
  // Each rank with each twin, every step's (the last one's too).
  EXPECT_EQ(exchanges, shape.dp * shape.p * (shape.dp - 1) * 6);
  for (const SimRecord& r : wave.records)
    if (r.kind == OpKind::OPT && r.step >= 1) {
      SCOPED_TRACE("rank " + std::to_string(r.rank) + " step " + std::to_string(r.step));
      const auto before = exchangedBy.find(std::pair{r.rank, r.step - 1});
      ASSERT_NE(before, exchangedBy.end());
      EXPECT_GE(r.start_ns, before->second);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, WaveSync,
                         ::testing::Values(WaveShape{2, 4, 2}, WaveShape{4, 8, 2},
                                           WaveShape{4, 16, 2}, WaveShape{3, 12, 3}),
                         [](const auto& shape) {
                           return "p" + std::to_string(shape.param.p) + "_m" +
                                  std::to_string(shape.param.m) + "_dp" +
                                  std::to_string(shape.param.dp);
                         });

CpuRunResult trained(const Plan& plan, float lr = 0.05f) {
  auto graph = validatePlan(plan);
  EXPECT_TRUE(graph.ok()) << graph.error();
  CpuRunOptions options;
  options.model.hidden = 8;
  options.model.seq = 2;
  options.model.microbatchSize = 2;
  options.optimizer.kind = OptimizerKind::Sgd;
  options.optimizer.lr = lr;
  options.optimizer.momentum = 0.5f;
  auto run = runOnCpuThreads(plan, *graph, options, nullptr);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : CpuRunResult{};
}

Plan built(const PlanSpec& spec) {
  auto b = buildPlan(spec);
  EXPECT_TRUE(b.ok()) << b.error();
  return b.ok() ? b->plan : Plan{};
}

TEST(WaveSyncTraining, StalenessZeroIsTheAllReduceBitForBit) {
  PlanSpec spec = replicas(WaveShape{2, 4, 2}, 0);
  spec.steps = 3;
  const Plan allReduce = built(spec);
  Plan wave = allReduce;
  wave.waveStaleness = 0;
  const CpuRunResult a = trained(allReduce), b = trained(wave);
  ASSERT_EQ(a.stepLoss.size(), 3u);
  ASSERT_EQ(b.stepLoss.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)  // a mean over micro-batches in the order they came
    EXPECT_NEAR(b.stepLoss[k], a.stepLoss[k], 1e-12 * a.stepLoss[k]);
  ASSERT_FALSE(a.finalParams.empty());
  EXPECT_EQ(b.finalParams, a.finalParams);
}

TEST(WaveSyncTraining, StaleWeightsAreTheSameWhateverTheTimingAndDifferFromSynchronous) {
  PlanSpec spec = replicas(WaveShape{2, 4, 2}, 1);
  spec.steps = 4;
  const Plan wave = built(spec);
  ASSERT_EQ(wave.waveStaleness, 1);
  const CpuRunResult first = trained(wave), second = trained(wave);
  ASSERT_EQ(first.stepLoss.size(), 4u);
  ASSERT_FALSE(first.finalParams.empty());
  EXPECT_EQ(second.finalParams, first.finalParams);
  spec.staleness = 0;
  const CpuRunResult sync = trained(built(spec));
  // Step 0 starts from the same weights; later steps see the other replica a step late.
  EXPECT_NEAR(first.stepLoss[0], sync.stepLoss[0], 1e-12);
  EXPECT_GT(std::abs(first.stepLoss[2] - sync.stepLoss[2]), 1e-4);
  EXPECT_LT(first.stepLoss.back(), first.stepLoss.front());
}

TEST(WaveSyncTraining, AReplicaBeyondTheStalenessTrainsAsALonePipeline) {
  // Three steps with staleness 3: no replica ever adds another's gradients. Replica 0 holds
  // micro-batches 0 .. 3 of 8; alone with 4 its loss gradient is scaled by 1/4, not 1/8: half
  // the learning rate gives the same steps.
  PlanSpec spec = replicas(WaveShape{2, 8, 2}, 3);
  spec.steps = 3;
  const CpuRunResult wave = trained(built(spec));
  PlanSpec alone = replicas(WaveShape{2, 4, 1}, 0);
  alone.steps = 3;
  const CpuRunResult lone = trained(built(alone), 0.025f);
  ASSERT_EQ(wave.finalParams.size(), lone.finalParams.size());
  ASSERT_FALSE(lone.finalParams.empty());
  double worst = 0;
  for (std::size_t i = 0; i < lone.finalParams.size(); ++i)
    worst =
        std::max(worst, static_cast<double>(std::abs(wave.finalParams[i] - lone.finalParams[i])));
  EXPECT_LT(worst, 1e-5);
  // With staleness 1 the other replica's gradients arrive and the weights differ.
  spec.staleness = 1;
  const CpuRunResult shared = trained(built(spec));
  double apart = 0;
  for (std::size_t i = 0; i < lone.finalParams.size(); ++i)
    apart =
        std::max(apart, static_cast<double>(std::abs(shared.finalParams[i] - lone.finalParams[i])));
  EXPECT_GT(apart, 1e-4);
}

TEST(WaveSyncPlans, NeedReplicasOfASynchronousPipelineAndRankThreads) {
  PlanSpec alone = replicas(WaveShape{2, 4, 1}, 1);
  auto refused = buildPlan(alone);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--staleness 1: HetPipe's virtual workers"));
  PlanSpec eager = replicas(WaveShape{2, 4, 2}, 1);
  eager.eagerSync = true;
  refused = buildPlan(eager);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("not with --eager-sync"));
  const Plan wave = built(replicas(WaveShape{2, 4, 2}, 2));
  EXPECT_TRUE(checkPlanFeatures(Backend::Cpu, false, wave, nullptr).ok());
  const Status procs = checkPlanFeatures(Backend::Cpu, true, wave, nullptr);
  ASSERT_FALSE(procs.ok());
  EXPECT_THAT(procs.error(), HasSubstr("--staleness: the cpu backend exchanges the replicas'"));
  // The knob round-trips through a run's config.
  auto b = buildPlan(replicas(WaveShape{2, 4, 2}, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_THAT(b->configJson, HasSubstr("\"staleness\":2"));
}

}  // namespace
}  // namespace ps::runtime
