// Chimera's two pipelines hold the same weights: before each optimizer step the cpu backend sums
// every stage's gradients with its twin's (barrier, exchange, barrier). The simulator now plans
// that all-reduce too (an AR op before OPT on every rank, as long as the slowest rank's
// exchange), so that a Chimera plan's predicted step is the one the backend runs.

#include <gtest/gtest.h>

#include <map>

#include "runtime/run/RunPlan.h"
#include "runtime/sim/OpCosts.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

constexpr double kReplicaMiB = 1024.0 * 1024.0;

PlanSpec chimera(double paramMb) {
  PlanSpec spec;
  spec.schedule = "chimera";
  spec.stages = 4;
  spec.microbatches = 4;
  spec.uniform.fwdUs = 10;
  spec.uniform.bwdUs = 20;
  spec.uniform.wgradUs = 10;
  spec.uniform.actMb = 1.0 / 16;
  spec.uniform.paramMb = paramMb;
  spec.uniform.linkGbps = 8;  // 1 byte per ns
  spec.uniform.linkLatencyUs = 5;
  return spec;
}

SimResult simulated(const BuiltPlan& built) {
  auto sim = simulate(built.plan, built.graph, built.cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? std::move(*sim) : SimResult{};
}

TEST(ReplicaAllReduce, EveryRankExchangesItsTwoStagesWithTheirTwinsBeforeOpt) {
  auto built = buildPlan(chimera(4));
  ASSERT_TRUE(built.ok()) << built.error();
  // Rank r holds stage r of the down pipeline and stage 3 − r of the up one, one layer each; the
  // twin of both is rank 3 − r: 2 × (4 MiB at 1 byte/ns + 5 µs).
  const std::int64_t expected = 2 * (static_cast<std::int64_t>(4 * kReplicaMiB) + 5000);
  EXPECT_EQ(sim::replicaAllReduceNs(built->plan, built->cost), expected);
  const SimResult sim = simulated(*built);
  std::map<int, SimRecord> ar, opt;
  for (const SimRecord& r : sim.records) {
    if (r.kind == OpKind::AR) {
      EXPECT_TRUE(ar.emplace(r.rank, r).second) << "one AR per rank";
    }
    if (r.kind == OpKind::OPT) opt.emplace(r.rank, r);
  }
  ASSERT_EQ(ar.size(), 4u);
  ASSERT_EQ(opt.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(ar[r].end_ns - ar[r].start_ns, expected);
    EXPECT_EQ(ar[r].peer_rank, 3 - r);
    EXPECT_EQ(opt[r].start_ns, ar[r].end_ns) << "the update waits for the exchange";
  }
}

TEST(ReplicaAllReduce, TheStepGrowsByTheExchangeAndNotAtAllWithoutParameters) {
  auto none = buildPlan(chimera(0));
  auto some = buildPlan(chimera(4));
  ASSERT_TRUE(none.ok() && some.ok());
  const SimResult a = simulated(*none), b = simulated(*some);
  // Only the latency is left without parameters: 2 × 5 µs.
  EXPECT_EQ(sim::replicaAllReduceNs(none->plan, none->cost), 10000);
  EXPECT_EQ(b.makespan - a.makespan, 2 * static_cast<std::int64_t>(4 * kReplicaMiB));
  // One pipeline has no twins, and no AR.
  PlanSpec one = chimera(4);
  one.schedule = "1f1b";
  auto plain = buildPlan(one);
  ASSERT_TRUE(plain.ok());
  for (const SimRecord& r : simulated(*plain).records)
    EXPECT_NE(r.kind, OpKind::AR);
}

// The op kinds each rank records per step are the same in the simulator and on the cpu backend:
// one AR and one OPT on every rank.
TEST(ReplicaAllReduce, SimAndCpuRecordTheSameOpsPerRank) {
  test::TempDir dir;
  std::map<std::string, std::map<std::pair<int, int>, int>> counts;  // source → (rank, kind)
  for (Backend backend : {Backend::Sim, Backend::Cpu}) {
    RunPlanRequest r = test::tinyModelRun(backend, 2, 4, 2);
    r.spec = chimera(0);
    r.spec.stages = 2;
    r.spec.steps = 2;
    const std::string name(backendName(backend));
    const std::string db = dir.file(name + ".sqlite");
    auto result = runPlan(r, {db});
    ASSERT_TRUE(result.ok()) << result.error();
    ASSERT_EQ(result->status, trace::RunStatus::Complete) << result->message;
    auto loaded = trace::loadRun(*result->store, *result->runId);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    auto& mine = counts[name];
    for (std::size_t rank = 0; rank < loaded->ranks.size(); ++rank)
      for (trace::Lane lane : {trace::Lane::Compute, trace::Lane::Collective})
        for (OpKind kind : loaded->ranks[rank].lane(lane).kind)
          ++mine[{static_cast<int>(rank), static_cast<int>(kind)}];
    EXPECT_EQ((mine[{0, static_cast<int>(OpKind::AR)}]), 2) << name;
    EXPECT_EQ((mine[{1, static_cast<int>(OpKind::AR)}]), 2) << name;
  }
  EXPECT_EQ(counts["sim"], counts["cpu"]);
}

}  // namespace
}  // namespace ps::runtime
