// BPipe's activation balancing (--balance-activations): the heavier rank of each pair (r, P−1−r)
// offloads activations to the lighter after F and reloads them before the backward. The headline
// (the peaks of the pairs meet at the same step time), the timing and memory rules of the moves
// in the simulator, their checks, and the cpu backend training with them exactly as without.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "runtime/plan/ActivationMoves.h"
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

std::vector<std::int64_t> peaks(const trace::RunAnalysis& a) {
  std::vector<std::int64_t> out;
  for (const auto& r : a.ranks)
    out.push_back(r.peak_memory_bytes.value_or(-1));
  return out;
}

SimResult simulated(const BuiltPlan& built) {
  auto sim = simulate(built.plan, built.graph, built.cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? std::move(*sim) : SimResult{};
}

// The headline: 1F1B p=8 m=16 at 8 MiB a stage holds 8,7,...,1 micro-batches' activations on
// ranks 0..7; balanced, each pair's peaks draw together and the step is as long as before.
TEST(ActivationBalance, BPipeNarrowsThePeakSpreadAtTheSameStepTime) {
  const auto base =
      trace::analyzeRun(test::simulateThroughTraceFile(test::presetSpec("bpipe-baseline")));
  const auto bpipe = trace::analyzeRun(test::simulateThroughTraceFile(test::presetSpec("bpipe")));
  const auto spread = [](const trace::RunAnalysis& a) {
    return headlineMetric(a, "peak_memory_spread_bytes").value_or(-1);
  };
  const std::vector<std::int64_t> before = peaks(base), after = peaks(bpipe);
  ASSERT_EQ(before.size(), 8u);
  ASSERT_EQ(after.size(), 8u);
  EXPECT_TRUE(std::is_sorted(before.rbegin(), before.rend())) << "1F1B: rank 0 holds the most";
  EXPECT_LT(spread(bpipe), spread(base) / 2);
  EXPECT_LT(*std::max_element(after.begin(), after.end()),
            *std::max_element(before.begin(), before.end()));
  ASSERT_TRUE(base.step_time_ns && bpipe.step_time_ns);
  EXPECT_LE(*bpipe.step_time_ns, *base.step_time_ns) << "the copies hide beside compute";
  std::int64_t moved = 0;
  for (const auto& link : bpipe.links)
    if ((link.src == 0 && link.dst == 7) || (link.src == 7 && link.dst == 0)) moved += link.bytes;
  EXPECT_GT(moved, 0) << "the moves show on the pair's links";
}

// Over a slow link the copies outlast the ops beside them: the moves are chosen with the link's
// time (simulated), so no pair's larger peak rises and the step stays as long as without moves.
// Before, at 25 Gb/s the walk's moves raised ranks 6-7 to 56 MiB while rank 0 stayed at 72.
TEST(ActivationBalance, MovesAreChosenWithTheLinksTime) {
  for (double gbps : {25.0, 200.0}) {
    PlanSpec with = test::presetSpec("bpipe"), without = test::presetSpec("bpipe-baseline");
    with.uniform.linkGbps = gbps;
    without.uniform.linkGbps = gbps;
    const auto a = trace::analyzeRun(test::simulateThroughTraceFile(with));
    const auto base = trace::analyzeRun(test::simulateThroughTraceFile(without));
    const std::vector<std::int64_t> after = peaks(a), before = peaks(base);
    ASSERT_EQ(after.size(), 8u);
    for (int r = 0; r < 4; ++r) {
      EXPECT_LE(std::max(after[r], after[7 - r]), std::max(before[r], before[7 - r]))
          << gbps << " Gb/s, pair " << r;
      // A lighter rank takes bytes only where its partner gives some up.
      if (after[7 - r] > before[7 - r]) {
        EXPECT_LT(after[r], before[r]) << gbps << " Gb/s, pair " << r;
      }
    }
    ASSERT_TRUE(a.step_time_ns && base.step_time_ns);
    EXPECT_LE(*a.step_time_ns, *base.step_time_ns + *base.step_time_ns / 10000) << gbps;
    if (gbps > 100) {
      EXPECT_LT(after[0], before[0]) << "at 200 Gb/s rank 0 still lends";
    }
  }
}

// Per moved (stage, micro-batch): one OFFLOAD after its F and one RELOAD that ends before its
// first backward starts, both on the owner's rank with the holder as peer and the F's kept bytes.
TEST(ActivationBalance, EachMoveOffloadsAfterItsForwardAndReloadsBeforeItsBackward) {
  auto built = buildPlan(test::presetSpec("bpipe"));
  ASSERT_TRUE(built.ok()) << built.error();
  ASSERT_FALSE(built->plan.activationMoves.empty());
  for (const ActivationMove& m : built->plan.activationMoves)
    EXPECT_EQ(m.holder, 7 - built->plan.rankOf(m.stage, m.microbatch)) << "pairs r and P-1-r";
  const SimResult sim = simulated(*built);
  using Key = std::tuple<int, int, int>;  // stage, micro-batch, step
  std::map<Key, SimRecord> f, b, offload, reload;
  for (const SimRecord& r : sim.records) {
    const Key k{r.stage, r.microbatch, r.step};
    if (r.kind == OpKind::F) f[k] = r;
    if (r.kind == OpKind::B) b[k] = r;
    if (r.kind == OpKind::OFFLOAD) {
      EXPECT_TRUE(offload.emplace(k, r).second) << "one OFFLOAD";
    }
    if (r.kind == OpKind::RELOAD) {
      EXPECT_TRUE(reload.emplace(k, r).second) << "one RELOAD";
    }
  }
  EXPECT_EQ(offload.size(), built->plan.activationMoves.size());
  EXPECT_EQ(reload.size(), offload.size());
  const std::int64_t twoLayers = 2 * 4 * 1024 * 1024;  // 16 layers on 8 stages at 4 MiB
  for (const auto& [k, off] : offload) {
    ASSERT_TRUE(reload.count(k) && f.count(k) && b.count(k));
    const SimRecord& back = reload[k];
    EXPECT_EQ(off.rank, f[k].rank);
    EXPECT_EQ(back.rank, f[k].rank);
    EXPECT_EQ(off.peer_rank, 7 - off.rank);
    EXPECT_EQ(off.bytes, twoLayers);
    EXPECT_EQ(back.bytes, twoLayers);
    EXPECT_GE(off.start_ns, f[k].end_ns);
    EXPECT_GE(back.start_ns, off.end_ns);
    EXPECT_LE(back.end_ns, b[k].start_ns) << "the backward waits for its activations";
    // 8 MiB at 800 Gb/s (100 bytes/ns) plus 2 µs.
    EXPECT_EQ(off.end_ns - off.start_ns, twoLayers / 100 + 2000);
  }
  // Every byte lent comes back: each rank ends the step where it does without moves.
  const auto lastSamples = [](const SimResult& r) {
    std::map<int, std::int64_t> last;
    for (const auto& s : r.memory)
      last[s.rank] = s.bytes;
    return last;
  };
  EXPECT_EQ(lastSamples(sim),
            lastSamples(simulated(*buildPlan(test::presetSpec("bpipe-baseline")))));
}

// The copies are timed by the link: when the pair's link is slow (1 byte per ns: an 8 MiB copy
// takes 8.4 ms) the RELOADs come late and the backwards waiting for them stretch the step.
TEST(ActivationBalance, ASlowPairLinkDelaysTheBackwardsThatWaitForReloads) {
  auto built = buildPlan(test::presetSpec("bpipe"));
  ASSERT_TRUE(built.ok()) << built.error();
  const SimResult fast = simulated(*built);
  built->cost.links[{0, 7}] = {1.0, 2000};
  built->cost.links[{7, 0}] = {1.0, 2000};
  const SimResult slow = simulated(*built);
  built->plan.activationMoves.clear();
  const SimResult without = simulated(*built);
  EXPECT_EQ(fast.makespan, without.makespan) << "over the fast link nothing waits";
  EXPECT_GT(slow.makespan, without.makespan + 8'000'000);
}

TEST(ActivationBalance, MovesAreCheckedByName) {
  auto built = buildPlan(test::presetSpec("bpipe"));
  ASSERT_TRUE(built.ok()) << built.error();
  Plan plan = built->plan;
  plan.activationMoves = {{0, 2, 0}};
  EXPECT_THAT(
      validatePlan(plan).error(),
      HasSubstr("activation move of stage 0, micro-batch 2: holder rank 0 must be another"));
  plan.activationMoves = {{0, 2, 7}, {0, 2, 7}};
  EXPECT_THAT(validatePlan(plan).error(), HasSubstr("moved twice"));
  plan.activationMoves = {{9, 0, 7}};
  EXPECT_THAT(validatePlan(plan).error(), HasSubstr("no such stage or micro-batch"));

  PlanSpec spec = test::presetSpec("bpipe");
  spec.recompute = true;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--balance-activations"));
  spec = test::presetSpec("bpipe");
  spec.forwardOnly = true;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("keeps no activations"));
  spec = test::presetSpec("bpipe");
  spec.dataParallel = 2;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--balance-activations with --dp 2"));
}

RunPlanRequest tinyCpuRun(bool balance) {
  // At p = 4 the copies' overlap with the next op leaves nothing to gain.
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, 8, 16, 2);
  r.spec.balanceActivations = balance;
  return r;
}

// On the cpu backend the stash really moves into the holder's memory and back: the weights after
// two steps are exactly those of the same plan without moves, and rank 0's peak falls.
TEST(ActivationBalance, TheCpuBackendTrainsTheSameWeightsWithLessOnRankZero) {
  test::TempDir dir;
  auto moved = runPlan(tinyCpuRun(true), {dir.file("bpipe.sqlite")});
  auto stayed = runPlan(tinyCpuRun(false), {dir.file("plain.sqlite")});
  ASSERT_TRUE(moved.ok()) << moved.error();
  ASSERT_TRUE(stayed.ok()) << stayed.error();
  ASSERT_EQ(moved->status, trace::RunStatus::Complete) << moved->message;
  ASSERT_TRUE(moved->exec && stayed->exec);
  EXPECT_EQ(moved->exec->finalParams, stayed->exec->finalParams);
  EXPECT_EQ(moved->exec->stepLoss, stayed->exec->stepLoss);
  ASSERT_EQ(moved->exec->peakMemory.size(), 8u);
  EXPECT_LT(moved->exec->peakMemory[0], stayed->exec->peakMemory[0]);
  auto loaded = trace::loadRun(*moved->store, *moved->runId);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  int offloads = 0, reloads = 0;
  for (const auto& rank : loaded->ranks)
    for (OpKind k : rank.lane(trace::Lane::Collective).kind) {
      offloads += k == OpKind::OFFLOAD;
      reloads += k == OpKind::RELOAD;
    }
  EXPECT_EQ(offloads, static_cast<int>(moved->built->plan.activationMoves.size()) * 2);
  EXPECT_EQ(reloads, offloads);
}

TEST(ActivationBalance, ProcessesAndGpusRefuseMovesBeforeWriting) {
  test::TempDir dir;
  RunPlanRequest r = tinyCpuRun(true);
  r.backend = Backend::Cuda;
  auto refused = runPlan(r, {dir.file("x.sqlite")});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("moves activations between rank threads only"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.sqlite")));
}

}  // namespace
}  // namespace ps::runtime
