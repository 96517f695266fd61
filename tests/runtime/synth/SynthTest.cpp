// Schedule synthesis under a memory cap (issue 36 §1): the headlines against the generators on the
// skewed transformer, the CSV read back, and a synthesised schedule trained on cpu threads.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/ReferenceTrainer.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/run/RunPlan.h"
#include "runtime/synth/SynthOutput.h"
#include "runtime/synth/Synthesise.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime::synth {
namespace {

using ::testing::HasSubstr;

SynthRequest skewed(int p, int m, int v = 1) {
  SynthRequest r;
  r.spec.stages = p;
  r.spec.microbatches = m;
  r.spec.chunks = v;
  r.spec.costsFile = test::sourcePath("resources/costs/skewed-transformer.json");
  return r;
}

// Every rank capped at `mib` MiB.
void capAll(SynthRequest& r, double mib) {
  r.spec.rankMemoryGb.assign(static_cast<std::size_t>(*r.spec.stages), mib / 1024.0);
}

const SynthBaseline& baseline(const SynthResult& r, const std::string& schedule) {
  const auto it = std::find_if(r.baselines.begin(), r.baselines.end(),
                               [&](const SynthBaseline& b) { return b.schedule == schedule; });
  EXPECT_NE(it, r.baselines.end()) << schedule;
  return *it;
}

void expectWithinCaps(const SynthResult& r) {
  ASSERT_EQ(r.peakPerRank.size(), r.capPerRank.size());
  for (std::size_t k = 0; k < r.peakPerRank.size(); ++k)
    EXPECT_LE(r.peakPerRank[k], r.capPerRank[k]) << "rank " << k;
}

TEST(Synth, UnderZbH1sPeakItIsNoSlowerThanZbH1) {
  for (int m : {8, 16}) {
    SynthRequest r = skewed(4, m);
    auto caps = capsOfSchedule(r, "zb-h1");
    ASSERT_TRUE(caps.ok()) << caps.error();
    r.spec.rankMemoryGb = *caps;
    auto s = synthesise(r);
    ASSERT_TRUE(s.ok()) << s.error();
    const SynthBaseline& h1 = baseline(*s, "zb-h1");
    ASSERT_TRUE(h1.stepNs) << h1.refused;
    EXPECT_LE(s->stepNs, *h1.stepNs) << "m " << m;
    EXPECT_FALSE(baseline(*s, "zb-h2").stepNs) << "ZB-H2 needs more than ZB-H1's peak";
    expectWithinCaps(*s);
  }
}

TEST(Synth, WithZbH2sPeakItReachesZbH2sStepWithinOnePercent) {
  SynthRequest r = skewed(4, 8);
  auto caps = capsOfSchedule(r, "zb-h2");
  ASSERT_TRUE(caps.ok()) << caps.error();
  r.spec.rankMemoryGb = *caps;
  auto s = synthesise(r);
  ASSERT_TRUE(s.ok()) << s.error();
  const SynthBaseline& h2 = baseline(*s, "zb-h2");
  ASSERT_TRUE(h2.stepNs) << h2.refused;
  EXPECT_LE(static_cast<double>(s->stepNs), 1.01 * static_cast<double>(*h2.stepNs));
  expectWithinCaps(*s);
}

TEST(Synth, BelowOneFOneBsRankZeroPeakItFindsAScheduleEveryGeneratorIsRefused) {
  SynthRequest r = skewed(4, 8);
  capAll(r, 390);  // 1F1B's rank 0 needs 394 MiB (4 micro-batches' activations)
  auto s = synthesise(r);
  ASSERT_TRUE(s.ok()) << s.error();
  for (const SynthBaseline& b : s->baselines)
    EXPECT_FALSE(b.stepNs) << b.schedule << " fits 390 MiB";
  EXPECT_GT(s->stepNs, 0);
  expectWithinCaps(*s);
  capAll(r, 380);  // below the weights and one micro-batch's activations of rank 0
  auto none = synthesise(r);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.error(), HasSubstr("rank 0 needs at least 386.50 MiB"));
  EXPECT_THAT(none.error(), HasSubstr("no schedule exists"));
}

// Uneven stages where the best generator that runs is not zero-bubble's own best: m = p (ZB-H2
// needs m >= 2p - 1), and three chunks (interleaved 1F1B keeps its backward whole).
TEST(Synth, OnTheSkewedTransformerItBeatsTheBestGeneratorByFivePercent) {
  for (auto [p, m, v] : {std::tuple{8, 8, 1}, std::tuple{4, 12, 3}}) {
    auto s = synthesise(skewed(p, m, v));
    ASSERT_TRUE(s.ok()) << s.error();
    const SynthBaseline* best = bestBaseline(s->baselines);
    ASSERT_NE(best, nullptr);
    EXPECT_LE(static_cast<double>(s->stepNs), 0.95 * static_cast<double>(*best->stepNs))
        << "p " << p << " m " << m << " v " << v << " against " << best->schedule;
  }
}

// At V = 2 the default placement is ZB-V's V-shape, searched from ZB-V's own order; looped (the
// interleaved placement) is asked for by name.
TEST(Synth, AtTwoChunksTheVShapeIsNoSlowerThanZbV) {
  auto s = synthesise(skewed(4, 8, 2));
  ASSERT_TRUE(s.ok()) << s.error();
  const SynthBaseline& zbv = baseline(*s, "zb-v");
  ASSERT_TRUE(zbv.stepNs) << zbv.refused;
  EXPECT_LT(s->stepNs, *zbv.stepNs);
  EXPECT_EQ(s->built->plan.placement[0][7].rank, 0) << "the V-shape's last stage is on rank 0";
  SynthRequest looped = skewed(4, 8, 2);
  looped.placement = "looped";
  auto l = synthesise(looped);
  ASSERT_TRUE(l.ok()) << l.error();
  EXPECT_EQ(l->built->plan.placement[0][7].rank, 3);
  looped.spec.chunks = 3;
  looped.placement = "v";
  EXPECT_THAT(synthesise(looped).error(), HasSubstr("--placement v"));
}

TEST(Synth, TheSameSeedGivesTheSameScheduleAndTheCsvReadsBackToTheSameStep) {
  SynthRequest r = skewed(4, 8);
  capAll(r, 392);
  auto a = synthesise(r), b = synthesise(r);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->built->plan.programs, b->built->plan.programs);
  test::TempDir dir;
  for (bool comms : {false, true}) {
    const std::string csv = dir.file(comms ? "comms.csv" : "compute.csv");
    ASSERT_TRUE(writeTorchCsvFile(csv, synthCsvText(*a->built, comms)).ok());
    auto back = buildPlan(replaySpec(r, *a, csv));
    ASSERT_TRUE(back.ok()) << back.error();
    auto sim = simulatePlan(*back, nullptr);
    ASSERT_TRUE(sim.ok()) << sim.error();
    EXPECT_EQ(sim->makespan, a->stepNs) << (comms ? "compute_comms" : "compute_only");
  }
}

TEST(Synth, ASynthesisedScheduleTrainsOnCpuAsTheUnpipelinedModel) {
  SynthRequest r;
  r.spec.stages = 3;
  r.spec.microbatches = 4;
  r.spec.layers = 3;
  auto s = synthesise(r);
  ASSERT_TRUE(s.ok()) << s.error();
  test::TempDir dir;
  const std::string csv = dir.file("synth.csv");
  ASSERT_TRUE(writeTorchCsvFile(csv, synthCsvText(*s->built, false)).ok());
  PlanSpec spec = replaySpec(r, *s, csv);
  spec.steps = 3;
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  const CpuRunOptions options = test::smallAdamRun();
  auto run = runOnCpuThreads(built->plan, built->graph, options, nullptr);
  ASSERT_TRUE(run.ok()) << run.error();
  ModelConfig whole = options.model;
  whole.layers = built->plan.numLayers;
  auto ref = referenceTrain(whole, 4, 3, options.optimizer);
  ASSERT_TRUE(ref.ok()) << ref.error();
  ASSERT_EQ(run->stepLoss.size(), ref->losses.size());
  for (std::size_t k = 0; k < ref->losses.size(); ++k)
    EXPECT_NEAR(run->stepLoss[k], ref->losses[k], 1e-5 * std::fabs(ref->losses[k])) << k;
}

TEST(Synth, KnobsItDoesNotModelAreRefusedByName) {
  SynthRequest r = skewed(4, 8);
  r.spec.dataParallel = 2;
  auto s = synthesise(r);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error(), HasSubstr("--dp"));
  r = skewed(4, 8);
  r.spec.steps = 2;
  EXPECT_THAT(synthesise(r).error(), HasSubstr("--steps"));
}

}  // namespace
}  // namespace ps::runtime::synth
