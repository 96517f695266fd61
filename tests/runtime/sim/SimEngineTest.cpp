// The two simulation engines agree: with free links simulate() replays the programs without
// events (ReplaySimulation), while EventSimulation — kept for links of finite bandwidth — must
// give the very same records, transfers, memory samples and peaks when run on the same plans.
// Covered: every generator over small sizes, repeated steps under both optimizer modes, link
// latency, recompute, variable micro-batch costs, heterogeneous ranks, a stage DAG whose fan-out
// shares one transfer per rank, token slices, DualPipeV's overlapped pairs.

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "runtime/plan/Validator.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/EventSimulation.h"
#include "runtime/sim/ReplaySimulation.h"
#include "tests/runtime/PlanTestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

auto recordKey(const SimRecord& r) {
  return std::tie(r.rank, r.start_ns, r.end_ns, r.kind, r.stage, r.microbatch, r.step, r.bytes,
                  r.peer_rank);
}

// The engines place ops (and so records, transfers and memory samples) in different orders:
// everything is compared sorted.
std::vector<SimRecord> sortedRecords(const SimResult& r) {
  auto all = allRecords(r);
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return recordKey(a) < recordKey(b); });
  return all;
}

std::vector<trace::MemorySample> sortedMemory(std::vector<trace::MemorySample> m) {
  // Each rank's samples are already in time order: a stable sort by rank keeps it.
  std::stable_sort(m.begin(), m.end(),
                   [](const auto& a, const auto& b) { return a.rank < b.rank; });
  return m;
}

void expectSameResults(const Plan& plan, const CostModel& cost, const std::string& what) {
  SCOPED_TRACE(what);
  auto graph = validatePlan(plan);
  ASSERT_TRUE(graph.ok()) << graph.error();
  auto replay = sim::ReplaySimulation(plan, *graph, cost).run();
  auto events = sim::EventSimulation(plan, *graph, cost).run();
  ASSERT_TRUE(replay.ok()) << replay.error();
  ASSERT_TRUE(events.ok()) << events.error();
  EXPECT_EQ(replay->records.size(), graph->computeCount);
  EXPECT_EQ(replay->transfers.size(), events->transfers.size());
  const auto rr = sortedRecords(*replay), er = sortedRecords(*events);
  ASSERT_EQ(rr.size(), er.size());
  for (std::size_t i = 0; i < rr.size(); ++i)
    ASSERT_EQ(recordKey(rr[i]), recordKey(er[i])) << "record " << i;
  const auto rm = sortedMemory(replay->memory), em = sortedMemory(events->memory);
  ASSERT_EQ(rm.size(), em.size());
  for (std::size_t i = 0; i < rm.size(); ++i)
    ASSERT_EQ(std::tie(rm[i].rank, rm[i].t_ns, rm[i].bytes),
              std::tie(em[i].rank, em[i].t_ns, em[i].bytes))
        << "sample " << i;
  // Per rank: the initial sample at 0, then one sample per instant, in time order.
  for (std::size_t i = 1; i < rm.size(); ++i) {
    if (rm[i].rank != rm[i - 1].rank) continue;
    ASSERT_TRUE(rm[i - 1].t_ns < rm[i].t_ns || rm[i].t_ns == 0) << "sample " << i;
  }
  EXPECT_EQ(replay->peakMemory, events->peakMemory);
  EXPECT_EQ(replay->peakActivationBytes, events->peakActivationBytes);
  EXPECT_EQ(replay->makespan, events->makespan);
}

CostModel costs(int layers, double latencyUs = 0, double paramMb = 0) {
  UniformCostFlags f;
  f.layers = layers;
  f.fwdUs = 3;
  f.bwdUs = 7;
  f.wgradUs = 2;
  f.actMb = 1;
  f.paramMb = paramMb;
  f.linkLatencyUs = latencyUs;
  auto c = uniformCostModel(f);
  EXPECT_TRUE(c.ok()) << c.error();
  c->optimizerNsPerParamByte = paramMb > 0 ? 0.001 : 0;  // OPT takes time too
  return *c;
}

TEST(SimEngines, AgreeOnEveryGenerator) {
  for (const auto& info : scheduleRegistry())
    for (int p : {2, 3, 4})
      for (int m : {1, 4, 8})
        for (int v : {1, 2}) {
          auto plan = info.generate({p, m, v, info.asynchronous ? 2 : 1});
          if (!plan.ok()) continue;
          const std::string what = info.name + " p=" + std::to_string(p) +
                                   " m=" + std::to_string(m) + " v=" + std::to_string(v);
          expectSameResults(*plan, costs(plan->numLayers), what);
          expectSameResults(*plan, costs(plan->numLayers, 1.5), what + " latency");
          if (info.asynchronous) continue;
          for (auto sync : {OptimizerSync::Barrier, OptimizerSync::None}) {
            auto steps = repeatSteps(*plan, 2, sync);
            ASSERT_TRUE(steps.ok());
            expectSameResults(*steps, costs(plan->numLayers, 0.5, 1), what + " two steps");
          }
        }
}

TEST(SimEngines, AgreeWithRecomputeScaledMicrobatchesAndUnevenRanks) {
  auto plan = generateSchedule("interleaved-1f1b", {4, 8, 2, 1});
  ASSERT_TRUE(plan.ok());
  addRecompute(*plan);
  for (int mb = 0; mb < plan->numMicrobatches(); ++mb)
    plan->microbatches[mb].costScale = 0.5 + 0.25 * mb;
  CostModel cost = costs(plan->numLayers, 2);
  cost.ranks.resize(4);
  cost.ranks[2].speed = 0.7;
  cost.links[{1, 2}] = LinkCost{0, 9000};  // a slower, still free, link
  expectSameResults(*plan, cost, "recompute, scaled micro-batches, a slow rank and link");
}

// Stage 0 feeds stages 1 and 2, both on rank 1, which feed stage 3: one transfer of stage 0's
// output serves both consumers, and EventSimulation names the first of them.
TEST(SimEngines, AgreeOnAStageDagSharingATransfer) {
  Plan plan = test::chainPlan(3, 2, {{"0F0", "0F1", "0B0", "0B1"}, {}, {}});
  plan.numStages = 4;
  plan.numLayers = 4;
  plan.placement[0] = {{0, 0, 0}, {1, 1, 1}, {1, 2, 2}, {2, 3, 3}};
  plan.stagePreds = {{}, {0}, {0}, {1, 2}};
  plan.programs[1] =
      test::chainPlan(1, 1, {{"1F0", "2F0", "1F1", "2F1", "2B0", "1B0", "2B1", "1B1"}}).programs[0];
  plan.programs[2] = test::chainPlan(1, 1, {{"3F0", "3F1", "3B0", "3B1"}}).programs[0];
  expectSameResults(plan, costs(4, 1), "stage DAG");
}

TEST(SimEngines, AgreeOnTokenSlices) {
  Plan plan = test::oneFOneB(3, 4);
  plan.microbatches[1].sliceOf = 0;
  plan.microbatches[3].sliceOf = 2;
  expectSameResults(plan, costs(3, 1), "token slices");
}

}  // namespace
}  // namespace ps::runtime
