// The ranks' communication lanes: Piper's expert all-to-alls (--a2a-mb, among a stage's
// replicas) and NestPipe's embedding fetches (--fetch-mb, gathered to stage 0's rank). Overlapped
// on the lane, compute goes on beside them and the step is shorter than with each on the compute
// stream; serial, the stream waits for each. Both show as A2A ops and on the links.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

struct Simulated {
  BuiltPlan built;
  SimResult sim;
};

Simulated simulated(const PlanSpec& spec) {
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  auto sim = simulate(built->plan, built->graph, built->cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  if (!sim.ok()) return {};
  return {std::move(*built), std::move(*sim)};
}

std::vector<SimRecord> ofKind(const SimResult& sim, OpKind kind) {
  std::vector<SimRecord> out;
  for (const auto& r : sim.records)
    if (r.kind == kind) out.push_back(r);
  return out;
}

TEST(CommLane, PipersOverlappedAllToAllsBeatSerialOnes) {
  const auto overlap = simulated(test::presetSpec("piper"));
  const auto serial = simulated(test::presetSpec("piper-baseline"));
  EXPECT_LT(overlap.sim.makespan, serial.sim.makespan);
  // One all-to-all share per F and B of every rank, each to the stage's one twin (--dp 2).
  const auto a2a = ofKind(overlap.sim, OpKind::A2A);
  std::size_t forwardsAndBackwards = 0;
  for (const auto& r : overlap.sim.records)
    forwardsAndBackwards += r.kind == OpKind::F || r.kind == OpKind::B;
  EXPECT_EQ(a2a.size(), forwardsAndBackwards);
  const Plan& plan = overlap.built.plan;
  for (const auto& r : a2a) {
    EXPECT_EQ(r.peer_rank, plan.placement[1 - plan.replicaOf(r.microbatch)][r.stage].rank);
    EXPECT_EQ(r.bytes, 8LL << 20) << "16 MiB per rank, half of it to the twin";
  }
}

// Serial: nothing starts on a rank's compute stream while its all-to-all runs (the op it follows
// ended as it started); overlapped, the next op starts with it.
TEST(CommLane, SerialAllToAllsHoldTheStreamOverlappedOnesDoNot) {
  const auto countOverlapped = [](const SimResult& sim) {
    int overlapped = 0;
    for (const auto& a : ofKind(sim, OpKind::A2A))
      for (const auto& op : sim.records)
        if (op.rank == a.rank && isCompute(op.kind) && op.start_ns >= a.start_ns &&
            op.start_ns < a.end_ns)
          ++overlapped;
    return overlapped;
  };
  EXPECT_EQ(countOverlapped(simulated(test::presetSpec("piper-baseline")).sim), 0);
  EXPECT_GT(countOverlapped(simulated(test::presetSpec("piper")).sim), 0);
}

TEST(CommLane, TheAllToAllsShowOnTheTwinsLinks) {
  const trace::RunTrace run = test::simulateThroughTraceFile(test::presetSpec("piper"));
  const auto analysis = trace::analyzeRun(run);
  std::int64_t twinBytes = 0;
  for (const auto& l : analysis.links)
    if (l.src % 4 == l.dst % 4 && l.src != l.dst) twinBytes += l.bytes;
  EXPECT_GT(twinBytes, 0) << "rank r and r + 4 hold the same stage";
}

TEST(CommLane, NestPipesInnerPipelineFetchesAheadAndBeatsSerialFetches) {
  const auto overlap = simulated(test::presetSpec("nestpipe"));
  const auto serial = simulated(test::presetSpec("nestpipe-baseline"));
  EXPECT_LT(overlap.sim.makespan, serial.sim.makespan);
  // On rank 0 one gather per F of stage 0 (the record without a peer), ending before it starts.
  for (const auto* run : {&overlap, &serial}) {
    std::map<std::pair<int, int>, std::int64_t> fetched;  // (step, micro-batch) -> arrival
    for (const auto& r : ofKind(run->sim, OpKind::A2A))
      if (r.peer_rank < 0 && r.fetchStage < 0) {
        EXPECT_EQ(r.rank, 0);
        fetched[{r.step, r.microbatch}] = r.end_ns;
      }
    int forwards = 0;
    for (const auto& f : run->sim.records)
      if (f.kind == OpKind::F && f.stage == 0) {
        ++forwards;
        const std::pair<int, int> id{f.step, f.microbatch};
        ASSERT_TRUE(fetched.contains(id));
        EXPECT_GE(f.start_ns, fetched[id]);
      }
    EXPECT_EQ(static_cast<int>(fetched.size()), forwards);
  }
  // Dual buffers: micro-batch 2's fetch starts once micro-batch 0's F has freed its buffer.
  std::int64_t f0End = -1, prefetch2 = -1;
  for (const auto& r : overlap.sim.records) {
    if (r.kind == OpKind::F && r.stage == 0 && r.microbatch == 0) f0End = r.end_ns;
    if (r.kind == OpKind::A2A && r.fetchStage == 0 && r.microbatch == 2) prefetch2 = r.start_ns;
  }
  ASSERT_GE(f0End, 0);
  EXPECT_GE(prefetch2, f0End);
}

// NestPipe's inter-batch stages (--fetch-stages-us): prefetch, H2D, key routing and lookup each
// on its own lane of rank 0, one micro-batch at a time, in order, then the gather; the buffers
// decide how much of the 2.7 ms chain a 1 ms forward hides.
TEST(CommLane, TheFetchStagesPipelineAndTheBuffersHideThem) {
  const auto dual = simulated(test::presetSpec("nestpipe"));
  std::map<std::pair<int, int>, std::vector<SimRecord>> chain;  // (step, mb) -> its stages
  std::vector<std::int64_t> laneEnd(kFetchStages, 0);
  for (const auto& r : dual.sim.records)
    if (r.fetchStage >= 0) {
      EXPECT_EQ(r.kind, OpKind::A2A);
      EXPECT_EQ(r.rank, 0);
      chain[{r.step, r.microbatch}].push_back(r);
    }
  ASSERT_EQ(chain.size(), 8u);
  const std::vector<std::int64_t> expectNs = {400000, 800000, 200000, 300000};
  for (const auto& [id, stages] : chain) {
    ASSERT_EQ(stages.size(), 4u);
    for (int k = 0; k < kFetchStages; ++k) {
      EXPECT_EQ(stages[k].fetchStage, k);
      EXPECT_EQ(stages[k].end_ns - stages[k].start_ns, expectNs[k]);
      EXPECT_GE(stages[k].start_ns, laneEnd[k]) << "a stage's lane holds one micro-batch";
      laneEnd[k] = stages[k].end_ns;
      if (k > 0) {
        EXPECT_GE(stages[k].start_ns, stages[k - 1].end_ns);
      }
    }
    for (const auto& g : ofKind(dual.sim, OpKind::A2A))
      if (g.peer_rank < 0 && g.fetchStage < 0 && g.step == id.first && g.microbatch == id.second) {
        EXPECT_GE(g.start_ns, stages.back().end_ns);
      }
  }
  EXPECT_EQ(toOpRecord(chain.begin()->second[1]).name, "H2D");
  // Stages of successive micro-batches overlap: the lookup of one beside the H2D of the next.
  const auto& first = chain.begin()->second;
  const auto& second = std::next(chain.begin())->second;
  EXPECT_LT(second[1].start_ns, first[3].end_ns);
  // One buffer more hides the chain; more add nothing; on the stream it costs the most.
  PlanSpec spec = test::presetSpec("nestpipe");
  std::vector<std::int64_t> steps;
  for (int ahead : {1, 2, 4}) {
    spec.fetchAhead = ahead;
    steps.push_back(simulated(spec).sim.makespan);
  }
  EXPECT_EQ(steps[0], dual.sim.makespan);
  EXPECT_LT(steps[1], steps[0]);
  EXPECT_EQ(steps[2], steps[1]);
  EXPECT_GT(simulated(test::presetSpec("nestpipe-baseline")).sim.makespan, steps[0]);
}

// Staleness-free: a step's keys are prefetched, copied and routed while the last step still
// runs, but its lookups and gathers wait until every rank has updated its rows (its OPT).
TEST(CommLane, ALaterStepsLookupsWaitForTheRowsTheLastStepUpdated) {
  PlanSpec spec = test::presetSpec("nestpipe");
  spec.steps = 3;
  const auto run = simulated(spec);
  std::map<int, std::int64_t> updated;  // step -> the last OPT's end
  for (const auto& r : run.sim.records)
    if (r.kind == OpKind::OPT) updated[r.step] = std::max(updated[r.step], r.end_ns);
  ASSERT_EQ(updated.size(), 3u);
  int ahead = 0, lookups = 0;
  for (const auto& r : run.sim.records) {
    if (r.kind != OpKind::A2A || r.rank != 0 || r.step == 0) continue;
    const std::int64_t rows = updated[r.step - 1];
    if (r.fetchStage == 0 && r.start_ns < rows) ++ahead;
    if (r.fetchStage == 3 || (r.fetchStage < 0 && r.peer_rank < 0)) {
      EXPECT_GE(r.start_ns, rows) << "step " << r.step << " micro-batch " << r.microbatch;
      lookups += r.fetchStage == 3 ? 1 : 0;
    }
  }
  EXPECT_EQ(lookups, 2 * 8);
  EXPECT_GT(ahead, 0) << "no prefetch ran beside the step before";
}

TEST(CommLane, BadFlagsNameTheFlag) {
  PlanSpec spec = test::presetSpec("piper");
  spec.dataParallel = 1;
  EXPECT_THAT(buildPlan(spec).error(),
              HasSubstr("--a2a-mb: the all-to-all runs among a stage's replicas"));
  spec = test::presetSpec("piper");
  spec.uniform.linkGbps.reset();
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("the links are free (no bandwidth)"));
  spec = test::presetSpec("nestpipe");
  spec.fetchMb = 0;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--fetch overlap: places the embedding fetch"));
  spec = test::presetSpec("nestpipe");
  spec.fetchAhead = 0;
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--fetch-ahead 0"));
  for (const auto& [stages, message] :
       {std::pair{"1,2,3",
                  "expected 4 times (prefetch, host-to-device, key routing, lookup), got 3"},
        std::pair{"1,x,3,4", "'x' is not a time in 0..1e9 µs"},
        std::pair{"1,2,3,", "'' is not a time"}}) {
    spec = test::presetSpec("nestpipe");
    spec.fetchStagesUs = stages;
    EXPECT_THAT(buildPlan(spec).error(), HasSubstr(message)) << stages;
  }
  spec = test::presetSpec("1f1b");
  spec.fetchStagesUs = "1,2,3,4";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("(give --fetch-mb too)"));
}

}  // namespace
}  // namespace ps::runtime
