// DiffusionPipe (--frozen-us, --fill): a frozen part's forward per micro-batch as FILL ops that
// feed stage 0. Run before each step's pipeline (the baseline) they lengthen every step; packed
// into the bubbles of the step before, they shorten the mean step and the bubble.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "runtime/plan/Validator.h"
#include "runtime/run/PresetHeadline.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

trace::RunAnalysis analyzed(const PlanSpec& spec) {
  return trace::analyzeRun(test::simulateThroughTraceFile(spec));
}

// The headline: the same frozen work, in the bubbles instead of before the pipeline.
TEST(FrozenFill, PackingTheFrozenWorkIntoBubblesShortensTheStepAndTheBubble) {
  const auto before = analyzed(test::presetSpec("diffusionpipe-baseline"));
  const auto bubbles = analyzed(test::presetSpec("diffusionpipe"));
  PlanSpec none = test::presetSpec("diffusionpipe");
  none.frozenUs = 0;
  none.fill.clear();
  const auto without = analyzed(none);
  ASSERT_TRUE(before.step_time_ns && bubbles.step_time_ns && without.step_time_ns);
  EXPECT_LT(*bubbles.step_time_ns, *before.step_time_ns);
  EXPECT_LT(bubbles.bubble_ratio, before.bubble_ratio);
  EXPECT_LT(bubbles.bubble_ratio, without.bubble_ratio) << "FILL is busy time";
  // Before the pipeline every step pays for the frozen work: 8 × 150 µs over 4 ranks at least.
  EXPECT_GE(*before.step_time_ns - *without.step_time_ns, 2 * 150'000);
  // In the bubbles only step 0 does (1 of 4 steps), so the mean step is at most a quarter of
  // the baseline's extra time above the plan without frozen work.
  EXPECT_LE(*bubbles.step_time_ns - *without.step_time_ns,
            (*before.step_time_ns - *without.step_time_ns) / 4 + 1);
}

// Every micro-batch of every step gets one FILL, which ends before its F(0, m) starts; the ones
// for steps 1.. run in the step before (ahead 1) without moving any other op of that step.
TEST(FrozenFill, EveryMicrobatchIsFedByOneFillThatEndsBeforeItsForward) {
  auto built = buildPlan(test::presetSpec("diffusionpipe"));
  ASSERT_TRUE(built.ok()) << built.error();
  int ahead = 0;
  for (const auto& program : built->plan.programs)
    for (const Action& a : program)
      if (a.kind == OpKind::FILL) ahead += a.ahead;
  EXPECT_EQ(ahead, 3 * 8) << "steps 1-3 are fed from the step before";
  auto sim = simulate(built->plan, built->graph, built->cost);
  ASSERT_TRUE(sim.ok()) << sim.error();
  std::map<std::tuple<int, int>, SimRecord> first;  // (step, mb) -> F(0, mb)
  for (const SimRecord& r : sim->records)
    if (r.kind == OpKind::F && r.stage == 0) first[{r.step, r.microbatch}] = r;
  std::vector<Action> fills;
  for (const auto& program : built->plan.programs)
    for (const Action& a : program)
      if (a.kind == OpKind::FILL) fills.push_back(a);
  EXPECT_EQ(fills.size(), 4u * 8);
  for (const SimRecord& r : sim->records) {
    if (r.kind != OpKind::FILL) continue;
    EXPECT_EQ(r.end_ns - r.start_ns, 150'000);
    // The FILL of (run step k, mb) feeds step k or k+1: whichever it feeds starts after it.
    const bool feedsNext = r.step + 1 < 4 && first[{r.step + 1, r.microbatch}].start_ns >= r.end_ns;
    const bool feedsThis = first[{r.step, r.microbatch}].start_ns >= r.end_ns;
    EXPECT_TRUE(feedsNext || feedsThis) << "step " << r.step << " mb " << r.microbatch;
  }
  // The fills in the bubbles move nothing: every step but 0 runs as without frozen work.
  PlanSpec none = test::presetSpec("diffusionpipe");
  none.frozenUs = 0;
  none.fill.clear();
  auto plain = buildPlan(none);
  ASSERT_TRUE(plain.ok());
  auto base = simulate(plain->plan, plain->graph, plain->cost);
  ASSERT_TRUE(base.ok());
  const auto spanOf = [](const SimResult& s, int step) {
    std::int64_t lo = INT64_MAX, hi = 0;
    for (const SimRecord& r : s.records)
      if (r.step == step && r.kind != OpKind::FILL) {
        lo = std::min(lo, r.start_ns);
        hi = std::max(hi, r.end_ns);
      }
    return hi - lo;
  };
  for (int k = 1; k < 4; ++k)
    EXPECT_EQ(spanOf(*sim, k), spanOf(*base, k)) << "step " << k;
}

TEST(FrozenFill, BadFlagsAndBackendsAreRefusedByName) {
  PlanSpec spec = test::presetSpec("diffusionpipe");
  spec.fill = "sideways";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--fill sideways: expected before or bubbles"));
  spec = test::presetSpec("diffusionpipe");
  spec.frozenUs = 0;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("give --frozen-us too"));
  spec = test::presetSpec("diffusionpipe");
  spec.frozenUs = -1;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--frozen-us -1"));
  spec = test::presetSpec("diffusionpipe");
  spec.schedule = "pipedream";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("asynchronous"));
  // A FILL that feeds a step the plan does not have.
  auto built = buildPlan(test::presetSpec("diffusionpipe"));
  ASSERT_TRUE(built.ok());
  Plan plan = built->plan;
  for (auto& program : plan.programs)
    for (Action& a : program)
      if (a.kind == OpKind::FILL) a.ahead = 5;
  EXPECT_THAT(validatePlan(plan).error(), HasSubstr("which the plan (steps 0..3) does not have"));

  test::TempDir dir;
  RunPlanRequest r = test::tinyModelRun(Backend::Cuda, 2, 4, 2);
  r.spec.frozenUs = 10;
  auto refused = runPlan(r, {dir.file("x.sqlite")});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--frozen-us: the cuda backend runs the frozen encoder"));
}

// The frozen output travels to stage 0's rank like an activation: on a finite link, each FILL
// run on another rank is a SEND_F whose arrival the F waits for, in both engines' terms.
TEST(FrozenFill, AFillOnAnotherRankSendsItsOutputToStageZero) {
  PlanSpec spec = test::presetSpec("diffusionpipe");
  spec.uniform.actMb = 8;
  spec.uniform.linkGbps = 10;  // 8 MiB in about 6.7 ms
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  auto sim = simulate(built->plan, built->graph, built->cost);
  ASSERT_TRUE(sim.ok()) << sim.error();
  std::map<std::tuple<int, int>, std::int64_t> forwardStart;  // (step, mb) -> F(0, mb)'s start
  for (const SimRecord& r : sim->records)
    if (r.kind == OpKind::F && r.stage == 0) forwardStart[{r.step, r.microbatch}] = r.start_ns;
  int remote = 0;
  for (const SimTransfer& t : sim->transfers) {
    const SimRecord& fill = sim->records[static_cast<std::size_t>(t.producer)];
    if (fill.kind != OpKind::FILL) continue;
    ++remote;
    EXPECT_NE(fill.rank, t.dst_rank);
    EXPECT_EQ(t.kind, OpKind::SEND_F);
    EXPECT_EQ(t.bytes, 8LL << 20);
    EXPECT_GE(t.start_ns, fill.end_ns);
    EXPECT_GT(t.arrival_ns, t.start_ns + 6'000'000);
    // It feeds this step's F(0, mb) or the next one's: that one starts after it arrives.
    const auto here = forwardStart.find({fill.step, fill.microbatch});
    const auto next = forwardStart.find({fill.step + 1, fill.microbatch});
    EXPECT_TRUE((here != forwardStart.end() && here->second >= t.arrival_ns) ||
                (next != forwardStart.end() && next->second >= t.arrival_ns));
  }
  EXPECT_GT(remote, 0) << "some frozen work runs off rank 0";
}

RunPlanRequest frozenCpuRun(const std::string& fill, double frozenUs) {
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, 4, 8, 3);
  r.spec.frozenUs = frozenUs;
  r.spec.fill = fill;
  return r;
}

// On the cpu backend the FILL ops run a real frozen encoder whose output is stage 0's input: the
// training is the same wherever the FILLs run (the bubbles or before each step), and not that of
// the model without the encoder.
TEST(FrozenFill, TheCpuBackendRunsTheFrozenEncoderWhereverItIsPlaced) {
  test::TempDir dir;
  auto bubbles = runPlan(frozenCpuRun("bubbles", 150), {dir.file("bubbles.sqlite")});
  auto before = runPlan(frozenCpuRun("before", 150), {dir.file("before.sqlite")});
  auto none = runPlan(frozenCpuRun("", 0), {dir.file("none.sqlite")});
  for (const auto* run : {&bubbles, &before, &none}) {
    ASSERT_TRUE(run->ok()) << run->error();
    ASSERT_EQ((*run)->status, trace::RunStatus::Complete) << (*run)->message;
  }
  EXPECT_EQ(bubbles->exec->stepLoss, before->exec->stepLoss);
  EXPECT_EQ(bubbles->exec->finalParams, before->exec->finalParams);
  EXPECT_NE(bubbles->exec->stepLoss, none->exec->stepLoss) << "stage 0 reads the encoder's output";
  EXPECT_LT(bubbles->exec->stepLoss.back(), bubbles->exec->stepLoss.front());
  // One FILL per micro-batch and step, each a real forward, its output sent to rank 0.
  auto loaded = trace::loadRun(*bubbles->store, *bubbles->runId);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  int fills = 0, timed = 0;
  for (const auto& rank : loaded->ranks) {
    const auto& c = rank.lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c.kind[i] == OpKind::FILL) {
        ++fills;
        timed += c.end[i] > c.start[i];
      }
  }
  EXPECT_EQ(fills, 8 * 3);
  EXPECT_EQ(timed, fills);
}

}  // namespace
}  // namespace ps::runtime
