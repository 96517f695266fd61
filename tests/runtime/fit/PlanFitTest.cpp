// pipescope-cli fit's core (runtime/fit): a run read back as a plan. On simulated runs, whose
// costs are known exactly, the fit must name the schedule, recover the stage costs and the link,
// and its replay must give the run's step time and bubble back; an order no generator makes
// becomes a schedule file that reruns as recorded.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "runtime/fit/PlanFit.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "runtime/schedules/Schedule.h"
#include "tests/common/TestUtil.h"
#include "trace/FileText.h"

namespace ps::runtime::fit {
namespace {

struct Simulated {
  trace::RunTrace run;
  std::int64_t stepNs = 0;
};

Simulated simulateSpec(const PlanSpec& spec) {
  RunPlanRequest request;
  request.spec = spec;
  auto preview = previewPlan(request, {}, 7);
  EXPECT_TRUE(preview.ok()) << preview.error();
  Simulated out;
  if (preview.ok()) out.run = *preview->trace;
  return out;
}

PlanSpec shape(const char* schedule, int p, int m, int v, int steps = 4) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = p;
  spec.microbatches = m;
  spec.chunks = v;
  spec.steps = steps;
  spec.uniform.actMb = 2;
  return spec;
}

struct Case {
  const char* schedule;
  int p, m, v;
};

class FitNamesTheSchedule : public ::testing::TestWithParam<Case> {};

TEST_P(FitNamesTheSchedule, AndItsReplayIsTheRun) {
  const Case& c = GetParam();
  const Simulated sim = simulateSpec(shape(c.schedule, c.p, c.m, c.v));
  auto fit = fitPlan(sim.run);
  ASSERT_TRUE(fit.ok()) << fit.error();
  EXPECT_EQ(fit->match.name, c.schedule);
  EXPECT_EQ(fit->program.ranks, c.p);
  EXPECT_EQ(fit->program.microbatches, c.m);
  EXPECT_EQ(fit->program.chunks, c.v);
  EXPECT_LT(std::abs(fit->quality.stepError()), 0.001) << fitReportText(*fit);
  EXPECT_NEAR(fit->quality.predictedBubble, fit->quality.measuredBubble, 0.002);
}

INSTANTIATE_TEST_SUITE_P(Schedules, FitNamesTheSchedule,
                         ::testing::Values(Case{"1f1b", 4, 8, 1}, Case{"gpipe", 4, 6, 1},
                                           Case{"zb-h1", 4, 8, 1},
                                           Case{"interleaved-1f1b", 4, 8, 2}, Case{"zb-v", 4, 8, 2},
                                           Case{"dualpipe-v", 4, 8, 2}),
                         [](const auto& param) {
                           std::string n = param.param.schedule;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// A skewed model over a slow link: stage 2's forward costs 3x, transfers take latency + bytes /
// bandwidth. The fit recovers the stage costs, the latency and the bandwidth from the ops.
TEST(PlanFit, RecoversStageCostsAndTheLink) {
  PlanSpec spec = shape("1f1b", 4, 8, 1);
  auto model = std::make_shared<CostModel>();
  for (int s = 0; s < 4; ++s) {
    LayerCost layer;
    layer.fwdNs = s == 2 ? 300e3 : 100e3;
    layer.inputGradNs = 120e3;
    layer.weightGradNs = 80e3;
    // Two sizes of boundary, so that bandwidth and latency separate.
    layer.outputBytes = s % 2 == 0 ? (4 << 20) : (1 << 20);
    layer.actBytes = 1 << 20;
    model->layers.push_back(layer);
  }
  model->defaultLink = {10.0, 20e3};  // 10 bytes/ns = 80 Gbit/s, 20 µs
  spec.costs = model;
  const Simulated sim = simulateSpec(spec);
  FitOptions options;
  options.fitLatency = false;
  auto fit = fitPlan(sim.run, options);
  ASSERT_TRUE(fit.ok()) << fit.error();
  const KindCost* f2 = fit->costs.find(2, trace::OpKind::F);
  ASSERT_NE(f2, nullptr);
  EXPECT_NEAR(f2->meanNs, 300e3, 1);
  EXPECT_NEAR(fit->costs.find(0, trace::OpKind::B)->meanNs, 200e3, 1);
  EXPECT_EQ(fit->costs.link.sizes, 2u);
  EXPECT_NEAR(fit->costs.link.bytesPerNs, 10.0, 0.05);
  EXPECT_NEAR(fit->costs.link.latencyNs, 20e3, 200);
  EXPECT_LT(std::abs(fit->quality.stepError()), 0.005) << fitReportText(*fit);
}

// The fitted plan as a preset file reads back (parsePreset) and simulates to the same step.
TEST(PlanFit, PresetFileRebuildsThePlan) {
  const Simulated sim = simulateSpec(shape("zb-h1", 4, 8, 1));
  auto fit = fitPlan(sim.run);
  ASSERT_TRUE(fit.ok()) << fit.error();
  auto preset = parsePreset(fittedPresetJson(*fit, sim.run, "runs.sqlite"), "fit.json");
  ASSERT_TRUE(preset.ok()) << preset.error();
  EXPECT_EQ(preset->spec.schedule, "zb-h1");
  const Simulated again = simulateSpec(preset->spec);
  auto refit = fitPlan(again.run);
  ASSERT_TRUE(refit.ok()) << refit.error();
  EXPECT_NEAR(static_cast<double>(refit->quality.measuredStepNs),
              static_cast<double>(fit->quality.measuredStepNs), 1e3);
}

// An order no generator makes (1F1B with rank 1's second and third actions swapped): the fit
// says so, names the nearest generator and writes the recorded order, which reruns as it ran.
TEST(PlanFit, AnUnknownOrderBecomesAScheduleFile) {
  auto base = generateSchedule("1f1b", {4, 8, 1, 1});
  ASSERT_TRUE(base.ok()) << base.error();
  std::swap(base->programs[1][1], base->programs[1][2]);
  test::TempDir dir;
  const std::string csv = dir.file("custom.csv");
  ASSERT_TRUE(writeTorchCsvFile(csv, writeTorchCsvComputeOnly(*base)).ok());
  PlanSpec spec;
  spec.scheduleFile = csv;
  spec.steps = 3;
  const Simulated sim = simulateSpec(spec);
  FitOptions options;
  options.scheduleFile = dir.file("fitted.csv");
  auto fit = fitPlan(sim.run, options);
  ASSERT_TRUE(fit.ok()) << fit.error();
  EXPECT_TRUE(fit->match.name.empty());
  EXPECT_EQ(fit->match.nearest, "1f1b");
  EXPECT_EQ(fit->match.differing, 2u);
  EXPECT_EQ(fit->spec.scheduleFile, options.scheduleFile);
  auto written = trace::readTextFile(options.scheduleFile, 1 << 20, "csv");
  ASSERT_TRUE(written.ok()) << written.error();
  EXPECT_EQ(*written, writeTorchCsvComputeOnly(*base));
  EXPECT_LT(std::abs(fit->quality.stepError()), 0.001) << fitReportText(*fit);
}

// A forward and a backward that ran overlapped (DualPipe's chunks on a GPU: the simulator runs an
// overlap unit's two ops back to back, so this run is built by hand): the recorded order keeps
// them as one unit, written as torch writes it, "(0F1;0B0)OVERLAP_F_B".
TEST(PlanFit, OverlappedPairsStayOverlapped) {
  trace::RunTrace run;
  run.info.id = 3;
  run.ranks.resize(1);
  trace::OpColumns& lane = run.ranks[0].lane(trace::Lane::Compute);
  lane.push(0, 100, trace::OpKind::F, 0, 0, 0, -1, -1, -1);
  lane.push(100, 200, trace::OpKind::F, 0, 1, 0, -1, -1, -1);
  lane.push(150, 300, trace::OpKind::B, 0, 0, 0, -1, -1, -1);
  lane.push(300, 400, trace::OpKind::B, 0, 1, 0, -1, -1, -1);
  auto program = readRecordedProgram(run, {0});
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->programs[0].size(), 4u);
  EXPECT_FALSE(program->programs[0][0].overlapNext);
  EXPECT_TRUE(program->programs[0][1].overlapNext);
  EXPECT_FALSE(program->programs[0][2].overlapNext);
  EXPECT_EQ(recordedScheduleCsv(*program), "0F0,(0F1;0B0)OVERLAP_F_B,0B1\n");
}

// Ops whose labels were not recognised have no stage: the fit refuses and says what to do.
TEST(PlanFit, RefusesOpsWithoutStage) {
  Simulated sim = simulateSpec(shape("1f1b", 2, 4, 1, 1));
  trace::OpColumns& lane = sim.run.ranks[1].lane(trace::Lane::Compute);
  lane.stage[0] = trace::kNoValue;
  auto fit = fitPlan(sim.run);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.error().find("1 forward/backward ops have no stage"), std::string::npos)
      << fit.error();
  EXPECT_NE(fit.error().find("rules file"), std::string::npos) << fit.error();
}

}  // namespace
}  // namespace ps::runtime::fit
