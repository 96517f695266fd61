// ZB-V over several steps (Qi et al. ICLR'24 §6 and §4): the paper's near-zero bubble relies on
// its optimizer post-validation — the optimizer step is no barrier (`--optimizer-sync none`) —
// and steps running back to back. Runs go through the CLI's path (buildPlan: generate, repeat
// steps, validate), the simulator, a trace file and RunAnalysis, with F = I = W = 1 µs per chunk
// (--fwd-us 1 --bwd-us 2 --wgrad-us 1), 1 MiB of activations per chunk and free links.
//
// The numbers, worked out from the order (ZeroBubbleV.cpp, m >= 2p-1): rank r's i-th op of a
// step starts i µs after its first, which is at r µs — a step is the gap-free block
// [r, r + 6m) on rank r (2 chunks × (F + I + W) × m). Without the barrier rank r's OPT (zero
// time) waits only for its own W's, and its next step's first forward F(r, 0) waits for rank
// r-1's, which starts at 6m + (r-1): rank r's step k is exactly [6mk + r, 6m(k+1) + r). The
// steady-state window of DESIGN §4 (first op of step 1 to first op of step N-1) is therefore
// fully busy on every rank: steady-state bubble 0. With the barrier every step starts on all
// ranks after the slowest rank's last W of the previous one: step k spans
// [k(6m+p-1), (k+1)(6m+p-1)), rank r busy 6m of it, steady-state bubble (p-1)/(6m+p-1).
// Memory: a rank finishes a step's W's before its next step's forwards, so its peak is one
// step's: 2p chunk activations, 1F1B's p micro-batches.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"
#include "runtime/sim/Simulator.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {
namespace {

constexpr std::int64_t kZbvUs = 1000;  // ns

BuiltPlan buildZbv(int p, int m, int steps, OptimizerSync sync) {
  PlanSpec spec;
  spec.schedule = "zb-v";
  spec.stages = p;
  spec.microbatches = m;
  spec.chunks = 2;
  spec.steps = steps;
  spec.optimizerSync = sync;
  spec.uniform.fwdUs = 1;
  spec.uniform.bwdUs = 2;
  spec.uniform.wgradUs = 1;
  spec.uniform.actMb = 1;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  return built.ok() ? std::move(*built) : BuiltPlan{};
}

// Simulates, writes the run to a trace file and analyses it as the app and `report` do.
trace::RunAnalysis analyseThroughTraceFile(const BuiltPlan& built, const SimResult& sim) {
  test::TempDir dir;
  auto store = trace::TraceStore::open(dir.file("zbv.sqlite"), trace::TraceStore::Mode::ReadWrite);
  EXPECT_TRUE(store.ok());
  RunPlanRequest request;
  request.built = std::make_shared<const BuiltPlan>(built);
  request.name = "zbv";
  auto saved = savePreview(previewOf(request, sim), {"", &*store});
  EXPECT_TRUE(saved.ok()) << saved.error();
  EXPECT_EQ(saved->status, trace::RunStatus::Complete) << saved->message;
  auto run = trace::loadRun(*store, saved->runId.value_or(-1));
  EXPECT_TRUE(run.ok()) << run.error();
  return trace::analyzeRun(*run);
}

SimResult simulateBuilt(const BuiltPlan& built) {
  auto sim = simulate(built.plan, built.graph, built.cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? std::move(*sim) : SimResult{};
}

TEST(ZeroBubbleVSteadyState, StepsTileWithoutAnOptimizerBarrier) {
  constexpr int kSteps = 4;
  for (int p : {2, 4, 6, 8})
    for (int m : {2 * p, 3 * p, 4 * p}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const BuiltPlan built = buildZbv(p, m, kSteps, OptimizerSync::None);
      const SimResult sim = simulateBuilt(built);
      const trace::RunAnalysis a = analyseThroughTraceFile(built, sim);
      ASSERT_TRUE(a.steady_bubble_ratio.has_value());
      EXPECT_EQ(*a.steady_bubble_ratio, 0.0);
      EXPECT_EQ(test::steadyStateBubble(built.plan, sim), 0.0);
      // Each step alone still shows the V's start-up skew: span 6m + p - 1, busy 6m per rank.
      ASSERT_EQ(a.steps.size(), static_cast<std::size_t>(kSteps));
      for (const auto& st : a.steps)
        EXPECT_NEAR(st.bubble_ratio, double(p - 1) / double(6 * m + p - 1), 1e-12);

      // The parallelogram: rank r's step k is exactly [6mk + r, 6m(k+1) + r) µs, gap-free.
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < kSteps; ++k) {
          std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0, busy = 0;
          for (const auto& rec : sim.records)
            if (rec.rank == r && rec.step == k && trace::isCompute(rec.kind)) {
              first = std::min(first, rec.start_ns);
              last = std::max(last, rec.end_ns);
              busy += rec.end_ns - rec.start_ns;
            }
          EXPECT_EQ(first, (6 * m * k + r) * kZbvUs) << "rank " << r << " step " << k;
          EXPECT_EQ(last, (6 * m * (k + 1) + r) * kZbvUs) << "rank " << r << " step " << k;
          EXPECT_EQ(busy, 6 * m * kZbvUs) << "rank " << r << " step " << k;
        }

      // Memory over the whole run: 2p chunk activations on every rank, 1F1B's (p micro-batches
      // on its first rank) over the same model, never two steps' worth.
      const auto peak = test::peakActivationUnits(built.plan, built.cost, sim);
      for (int r = 0; r < p; ++r)
        EXPECT_EQ(peak[r], 2 * p) << "rank " << r;
    }
}

TEST(ZeroBubbleVSteadyState, TheOptimizerBarrierCostsTheSkewEveryStep) {
  for (int p : {2, 4, 8})
    for (int m : {2 * p, 4 * p}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const BuiltPlan built = buildZbv(p, m, 4, OptimizerSync::Barrier);
      const SimResult sim = simulateBuilt(built);
      EXPECT_NEAR(test::steadyStateBubble(built.plan, sim), double(p - 1) / double(6 * m + p - 1),
                  1e-12);
      EXPECT_EQ(sim.makespan, 4 * (6 * m + p - 1) * kZbvUs);
    }
}

// 1F1B over the same model (one stage of two layers per rank) holds p micro-batches on its first
// rank: 2p layer activations, ZB-V's peak on every rank.
TEST(ZeroBubbleVSteadyState, PeakIsOneFOneBsOverTheSameModel) {
  for (int p : {2, 4, 6, 8}) {
    const BuiltPlan zbv = buildZbv(p, 3 * p, 4, OptimizerSync::None);
    PlanSpec spec;
    spec.schedule = "1f1b";
    spec.stages = p;
    spec.microbatches = 3 * p;
    spec.layers = 2 * p;
    spec.steps = 4;
    spec.uniform = {2 * p, 1, 2, 1, 1};
    auto base = buildPlan(spec);
    ASSERT_TRUE(base.ok()) << base.error();
    const SimResult zs = simulateBuilt(zbv);
    const SimResult bs = simulateBuilt(*base);
    EXPECT_EQ(*std::max_element(zs.peakActivationBytes.begin(), zs.peakActivationBytes.end()),
              bs.peakActivationBytes[0])
        << "p=" << p;
  }
}

// One cell per µs of simulated time, one row per rank: "{stage}{KIND}{mb}.{step}" for the op
// running then, empty when the rank idles (zero-time OPTs take no cell).
std::string timelineCsv(const Plan& plan, const SimResult& sim) {
  std::vector<std::vector<std::string>> grid(plan.numRanks);
  for (const auto& rec : sim.records) {
    if (!trace::isCompute(rec.kind) || rec.end_ns == rec.start_ns) continue;
    auto& row = grid[rec.rank];
    const auto from = static_cast<std::size_t>(rec.start_ns / kZbvUs);
    const auto to = static_cast<std::size_t>(rec.end_ns / kZbvUs);
    if (row.size() < to) row.resize(to);
    Action a{rec.kind, rec.stage, rec.microbatch, rec.step};
    for (auto t = from; t < to; ++t)
      row[t] = actionLabel(a) + "." + std::to_string(rec.step);
  }
  std::string out;
  for (const auto& row : grid) {
    for (std::size_t t = 0; t < row.size(); ++t)
      out += (t ? "," : "") + row[t];
    out += "\n";
  }
  return out;
}

// p = 4, m = 8, two steps without the barrier, checked by hand: row r starts with r empty cells,
// then 48 busy cells of step 0 (warm-up F0^(7-2r) (F1 F0)^r (F1 I1 W1)^(4-r), ...) and 48 of
// step 1 with no empty cell between; rank 0 starts step 1 (cell 48) while rank 3 still runs
// step 0's deferred W's (cells 48..50).
TEST(ZeroBubbleVSteadyState, TwoStepTimelineMatchesItsGolden) {
  const BuiltPlan built = buildZbv(4, 8, 2, OptimizerSync::None);
  test::expectGolden("timeline_zb-v_p4_m8_s2_none.csv",
                     timelineCsv(built.plan, simulateBuilt(built)));
}

}  // namespace
}  // namespace ps::runtime
