// Eager gradient sync (--eager-sync, issue 35 item 6: BitPipe's and Chimera's): each stage's
// gradients go to its twin as soon as both holders are done with its backward, one exchange at a
// time on the rank's link beside compute; a rank's OPT waits for its last exchange. Checked
// against the records themselves: every exchange starts when the later of the two holders ended
// the stage's last backward op (or its link was free), and the step is shorter than exchanging
// everything after the last backward.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

PlanSpec replicated(const std::string& schedule, bool eager) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = 4;
  spec.microbatches = 8;
  spec.uniform.fwdUs = 100;
  spec.uniform.bwdUs = 200;
  spec.uniform.wgradUs = 100;
  spec.uniform.actMb = 1;
  spec.uniform.paramMb = 0.25;
  spec.uniform.linkGbps = 8;  // 1 byte per ns: a 0.25 MiB exchange takes 262 µs + latency
  spec.uniform.linkLatencyUs = 5;
  spec.eagerSync = eager;
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

class EagerSync : public ::testing::TestWithParam<std::string> {};

TEST_P(EagerSync, EachExchangeStartsWhenBothHoldersAreDoneAndTheStepIsShorter) {
  const SimResult eager = simulated(replicated(GetParam(), true));
  const SimResult atTheEnd = simulated(replicated(GetParam(), false));
  ASSERT_FALSE(eager.records.empty());
  EXPECT_LT(eager.makespan, atTheEnd.makespan);
  std::int64_t computeEnd = 0;
  for (const SimRecord& r : eager.records)
    if (r.kind != OpKind::AR && r.kind != OpKind::OPT) computeEnd = std::max(computeEnd, r.end_ns);
  std::map<int, std::vector<SimRecord>> exchanges;  // per rank, by start
  std::map<int, SimRecord> opt;
  for (const SimRecord& r : eager.records) {
    if (r.kind == OpKind::AR) exchanges[r.rank].push_back(r);
    if (r.kind == OpKind::OPT) opt[r.rank] = r;
  }
  ASSERT_EQ(exchanges.size(), 4u);
  bool overlapsCompute = false;
  for (auto& [rank, list] : exchanges) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    std::sort(list.begin(), list.end(),
              [](const SimRecord& a, const SimRecord& b) { return a.start_ns < b.start_ns; });
    std::int64_t lane = 0;
    for (const SimRecord& x : list) {
      std::int64_t ready = 0;  // the stage's last backward op on either holder
      for (const SimRecord& r : eager.records)
        if ((r.kind == OpKind::W || r.kind == OpKind::B) && r.stage == x.stage &&
            (r.rank == rank || r.rank == x.peer_rank))
          ready = std::max(ready, r.end_ns);
      EXPECT_EQ(x.start_ns, std::max(lane, ready)) << "stage " << x.stage;
      EXPECT_EQ(x.end_ns - x.start_ns, 262144 + 5000);
      overlapsCompute |= x.start_ns < computeEnd;
      lane = x.end_ns;
    }
    // The update starts once the exchanges and the step's barrier are both done.
    const std::int64_t update = opt[rank].end_ns - opt[rank].start_ns;
    EXPECT_EQ(opt[rank].start_ns, std::max(lane, computeEnd)) << "update " << update;
  }
  EXPECT_TRUE(overlapsCompute) << "no exchange ran beside compute";
}

INSTANTIATE_TEST_SUITE_P(Replicated, EagerSync, ::testing::Values("bitpipe", "chimera"));

TEST(EagerSyncPlans, OnlyReplicatedStagesUnderTheBarrier) {
  auto one = buildPlan(replicated("1f1b", true));
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(one.error(), HasSubstr("--eager-sync"));
  PlanSpec none = replicated("chimera", true);
  none.optimizerSync = OptimizerSync::None;
  auto noBarrier = buildPlan(none);
  ASSERT_FALSE(noBarrier.ok());
  EXPECT_THAT(noBarrier.error(), HasSubstr("--optimizer-sync barrier"));
}

}  // namespace
}  // namespace ps::runtime
