// Costs whose times or bytes do not fit (int64, or the 2^52 ns a trace holds): a clear error naming
// the flag at the boundary, or the simulator's checked-arithmetic error inside; never a wrapped
// time (these used to report 2.4 ms with SEND/RECV ending at -9.2e18 ns, drop transfers, or say
// "simulation stalled"). Also the simulator's cancel flag.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "runtime/cost/CostJson.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

using ::testing::StartsWith;

PlanSpec small(int p = 4, int m = 8) {
  PlanSpec s;
  s.stages = p;
  s.microbatches = m;
  return s;
}

std::string buildError(const PlanSpec& s) {
  auto built = buildPlan(s);
  return built ? std::string("(built)") : built.error();
}

Result<SimResult> simulateSpec(const PlanSpec& s, const std::atomic<bool>* cancel = nullptr) {
  auto built = buildPlan(s);
  if (!built) return std::move(built).takeError();
  return simulate(built->plan, built->graph, built->cost, cancel);
}

TEST(SimOverflow, SlowLinkIsRefusedByTheFlag) {
  PlanSpec s = small();
  s.uniform.actMb = 10;
  s.uniform.linkGbps = 1e-12;
  EXPECT_EQ(buildError(s),
            "--link-gbps 1e-12: one 10 MiB transfer would take 8.38861e+10 s (limit 1e+06 s)");
}

TEST(SimOverflow, HugeActivationsAreRefusedByTheFlag) {
  PlanSpec s = small();
  s.uniform.actMb = 1e20;
  s.uniform.linkGbps = 1;
  EXPECT_EQ(buildError(s),
            "--act-mb 1e+20: more than 1.04858e+06 MiB (1 TiB) per layer and micro-batch");
}

TEST(SimOverflow, HugeForwardIsRefusedByTheFlag) {
  PlanSpec s = small();
  s.uniform.fwdUs = 1e15;
  EXPECT_EQ(buildError(s), "--fwd-us 1e+15: one op would take 1e+09 s (limit 1e+06 s)");
}

TEST(SimOverflow, NonFiniteFlagsAreRefused) {
  PlanSpec s = small();
  s.uniform.bwdUs = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(buildError(s), "--bwd-us must be positive (got nan)");
  s = small();
  s.uniform.linkGbps = std::numeric_limits<double>::infinity();
  EXPECT_EQ(buildError(s), "--link-gbps must be positive (got inf)");
}

TEST(SimOverflow, StageSumPastInt64IsAnError) {
  // Each layer within the flag's limit, but 5 of them on one stage: 5·10^15 ns for one F, past
  // the 2^52 ns a trace holds.
  PlanSpec s = small(1, 1);
  s.layers = 5;
  s.uniform.fwdUs = 1e12;
  s.uniform.bwdUs = 1e12;
  s.uniform.wgradUs = 5e11;
  auto sim = simulateSpec(s);
  ASSERT_FALSE(sim);
  EXPECT_EQ(sim.error(),
            "simulated time exceeds 2^52 ns (52 days, the most a trace holds) at rank 0, 0F0 (0 "
            "ns + 5000000000000000 ns); shorten the costs or the plan");
}

TEST(SimOverflow, StepSumPastInt64IsAnErrorInBothEngines) {
  // 10^15 ns per F and per B: 4 micro-batches run 8·10^15 ns on each rank.
  for (const bool links : {false, true}) {
    PlanSpec s = small(2, 4);
    s.uniform.fwdUs = 1e12;
    s.uniform.bwdUs = 1e12;
    s.uniform.wgradUs = 5e11;
    if (links) s.uniform.linkGbps = 100;
    auto sim = simulateSpec(s);
    ASSERT_FALSE(sim) << links;
    EXPECT_THAT(sim.error(),
                StartsWith("simulated time exceeds 2^52 ns (52 days, the most a trace holds) at "))
        << links;
  }
}

TEST(SimOverflow, LargeButFittingTimesAreExact) {
  // One stage, one micro-batch: F then B, 10^15 ns each, no wrap, no cap.
  PlanSpec s = small(1, 1);
  s.uniform.fwdUs = 1e12;
  s.uniform.bwdUs = 1e12;
  s.uniform.wgradUs = 5e11;
  auto sim = simulateSpec(s);
  ASSERT_TRUE(sim) << sim.error();
  EXPECT_EQ(sim->makespan, 2'000'000'000'000'000);
}

TEST(SimOverflow, CostJsonRangesAreChecked) {
  auto slow = parseCostJson(
      R"({"layers":[{"fwd_us":1,"bwd_us":2,"act_bytes":10485760}],"link":{"gbps":1e-12}})",
      "c.json");
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error(),
            "c.json: link: 1e-12 Gb/s: one 10485760-byte transfer would take 8.38861e+10 s (limit "
            "1e+06 s)");
  auto many = parseCostJson(
      R"({"layers":[{"fwd_us":1,"bwd_us":2,"repeat":1000000},{"fwd_us":1,"bwd_us":2,"repeat":1000000}]})",
      "c.json");
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error(),
            "c.json: layers[1].repeat: the model would have more than 1048576 layers");
  auto huge = parseCostJson(R"({"layers":[{"fwd_us":1e300,"bwd_us":2}]})", "c.json");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error(), "c.json: layer 0 (layer0): a time outside 0..1e+12 µs");
}

TEST(SimCancel, ASetFlagCancelsBothEngines) {
  for (const bool links : {false, true}) {
    PlanSpec s = small(8, 1024);  // 16k ops: polled several times
    if (links) s.uniform.linkGbps = 100;
    std::atomic<bool> cancel{true};
    auto sim = simulateSpec(s, &cancel);
    ASSERT_FALSE(sim) << links;
    EXPECT_EQ(sim.error(), "simulation cancelled") << links;
    std::atomic<bool> keepGoing{false};
    EXPECT_TRUE(simulateSpec(s, &keepGoing)) << links;
  }
}

}  // namespace
}  // namespace ps::runtime
