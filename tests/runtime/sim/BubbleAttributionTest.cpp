// Bubble attribution and the critical path (trace/analysis) on simulated runs of every generator,
// read back through a trace file as `report` and the app read them. Costs are DESIGN §5's uniform
// flags (one layer per stage, F = 1 µs, B = 2 µs unless a test says otherwise).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "runtime/run/PlanBuilder.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {
namespace {

using trace::IdleCause;

// A generator's smallest comfortable sizes: what its constraints (`schedules`) allow.
PlanSpec specFor(const std::string& schedule) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = 4;
  spec.microbatches = 8;
  if (schedule == "interleaved-1f1b" || schedule == "looped-bfs") spec.chunks = 2;
  if (schedule == "zb-v" || schedule == "dualpipe-v") spec.chunks = 2;
  if (schedule == "pipedream" || schedule == "pipedream-2bw") spec.steps = 3;
  spec.uniform.fwdUs = 1;
  spec.uniform.bwdUs = 2;
  spec.uniform.wgradUs = 1;
  spec.uniform.actMb = 1;
  return spec;
}

trace::RunTrace simulateToTrace(const PlanSpec& spec) {
  return test::simulateThroughTraceFile(spec);
}

// Σ over steps of each rank's idle time (span − busy, DESIGN §4).
std::vector<std::int64_t> idlePerRank(const trace::RunTrace& run) {
  const trace::RunAnalysis a = trace::analyzeRun(run);
  std::vector<std::int64_t> idle(run.ranks.size(), 0);
  for (const auto& s : a.steps)
    for (std::size_t r = 0; r < idle.size(); ++r)
      idle[r] += s.span_ns() - s.rank_busy_ns[r];
  return idle;
}

std::shared_ptr<const CostModel> costsWith(const PlanSpec& spec, auto&& edit) {
  UniformCostFlags flags = spec.uniform;
  flags.layers = *spec.stages * spec.chunks;
  auto model = uniformCostModel(flags);
  EXPECT_TRUE(model.ok()) << model.error();
  auto cost = std::make_shared<CostModel>(*model);
  edit(*cost);
  return cost;
}

void expectPartsSumToIdle(const trace::RunTrace& run) {
  const trace::StepGraph graph(run);
  const trace::BubbleAttribution a = trace::attributeBubbles(graph);
  const auto idle = idlePerRank(run);
  ASSERT_EQ(a.ranks.size(), idle.size());
  std::int64_t total = 0;
  for (std::size_t r = 0; r < idle.size(); ++r) {
    EXPECT_EQ(a.ranks[r].total(), idle[r]) << "rank " << r;
    std::int64_t fromParts = 0;
    for (const auto& p : a.parts[r])
      fromParts += p.end - p.start;
    EXPECT_EQ(fromParts, idle[r]) << "rank " << r;
    total += idle[r];
  }
  EXPECT_EQ(a.run.total(), total);
}

TEST(BubbleAttribution, PartsAddUpToEachRanksIdleTimeOnEveryGenerator) {
  for (const auto& info : scheduleRegistry()) {
    for (int mix = 0; mix < 3; ++mix) {
      SCOPED_TRACE(info.name + " mix " + std::to_string(mix));
      PlanSpec spec = specFor(info.name);
      if (mix == 1) {  // uneven costs: B = 3F, W a third of it
        spec.uniform.bwdUs = 3;
        spec.uniform.wgradUs = 1;
      }
      if (mix == 2) {  // a link that takes time: 1 MiB at 8 Gb/s is ~1 µs, plus latency
        spec.uniform.linkGbps = 8;
        spec.uniform.linkLatencyUs = 0.5;
      }
      expectPartsSumToIdle(simulateToTrace(spec));
    }
  }
}

// GPipe and 1F1B at F = t, B = 2t, equal stages, free links: only fill, drain and dependency
// waits, and every rank's share is (p-1)/(m+p-1).
TEST(BubbleAttribution, ClassicsIdleOnlyInWarmupDrainAndDependencies) {
  for (const char* name : {"gpipe", "1f1b"})
    for (int p : {2, 4})
      for (int m : {4, 8}) {
        SCOPED_TRACE(std::string(name) + " p=" + std::to_string(p) + " m=" + std::to_string(m));
        PlanSpec spec = specFor(name);
        spec.stages = p;
        spec.microbatches = m;
        const trace::RunTrace run = simulateToTrace(spec);
        const trace::StepGraph graph(run);
        const auto a = trace::attributeBubbles(graph);
        for (IdleCause c :
             {IdleCause::Transfer, IdleCause::Imbalance, IdleCause::Barrier, IdleCause::Other})
          EXPECT_EQ(a.run[c], 0) << trace::idleCauseLabel(c);
        EXPECT_GT(a.run[IdleCause::Warmup], 0);
        EXPECT_GT(a.run[IdleCause::Drain], 0);
        for (std::size_t r = 0; r < a.ranks.size(); ++r)
          EXPECT_NEAR(double(a.ranks[r].total()) / double(a.spanSumNs), double(p - 1) / (m + p - 1),
                      1e-12)
              << "rank " << r;
      }
}

// 1F1B with rank 1 at 1/1.5 the speed: the ranks around it wait on it, as imbalance; rank 1
// itself, the slowest, has no one slower to wait for.
TEST(BubbleAttribution, ASlowerRankShowsAsImbalanceOnTheOthers) {
  PlanSpec spec = specFor("1f1b");
  spec.costs = costsWith(spec, [](CostModel& c) {
    c.ranks.resize(4);
    c.ranks[1].speed = 1.0 / 1.5;
  });
  const trace::RunTrace run = simulateToTrace(spec);
  const trace::StepGraph graph(run);
  const auto a = trace::attributeBubbles(graph);
  for (int r : {0, 2, 3})
    EXPECT_GT(a.ranks[r][IdleCause::Imbalance], 0) << "rank " << r;
  EXPECT_EQ(a.ranks[1][IdleCause::Imbalance], 0);
  expectPartsSumToIdle(run);
}

// A slow link: the receivers wait for data in flight (transfer), the first rank receives no
// activations but gradients. The last rank's waits for the next activation are its order's
// instead (GPipe runs every forward first, while its backwards are ready), from the time its
// first backward was.
TEST(BubbleAttribution, ASlowLinkShowsAsTransferOnTheReceiver) {
  PlanSpec spec = specFor("gpipe");
  spec.uniform.linkGbps = 1;  // 1 MiB in ~8.4 µs, four forwards' worth
  const trace::RunTrace run = simulateToTrace(spec);
  const trace::StepGraph graph(run);
  const auto a = trace::attributeBubbles(graph);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_GT(a.ranks[r][IdleCause::Transfer], 0) << "rank " << r;
    EXPECT_EQ(a.ranks[r][IdleCause::Order], 0) << "rank " << r;
  }
  EXPECT_GT(a.ranks[3][IdleCause::Order], 0);
  expectPartsSumToIdle(run);
  // Every transfer part names the receive it waited on, on the waiting rank.
  for (std::size_t r = 0; r < a.parts.size(); ++r)
    for (const auto& p : a.parts[r])
      if (p.cause == IdleCause::Transfer) {
        ASSERT_TRUE(p.waitedFor.valid());
        EXPECT_EQ(p.waitedFor.rank, static_cast<int>(r));
        EXPECT_EQ(p.waitedFor.lane, trace::Lane::Recv);
      }
}

// One rank's optimizer step four times as long (its stage holds more parameters): the others,
// done with their own, wait at the step's end — the barrier, not the pipeline's drain.
TEST(BubbleAttribution, ALongOptimizerStepHoldsTheOthersAtTheBarrier) {
  PlanSpec spec = specFor("1f1b");
  spec.costs = costsWith(spec, [](CostModel& c) {
    for (auto& l : c.layers)
      l.paramBytes = 1000;
    c.layers[2].paramBytes = 4000;
    c.optimizerNsPerParamByte = 1;  // 1 µs per stage, 4 µs on rank 2
  });
  const trace::RunTrace run = simulateToTrace(spec);
  const trace::StepGraph graph(run);
  const auto a = trace::attributeBubbles(graph);
  for (int r : {0, 1, 3})
    EXPECT_EQ(a.ranks[r][IdleCause::Barrier], 3000) << "rank " << r;
  EXPECT_EQ(a.ranks[2][IdleCause::Barrier], 0);
  expectPartsSumToIdle(run);
}

// Piper's all-to-alls and NestPipe's fetches (A2A on the collective lane) are what the ranks wait
// for, not something the recorded dependencies leave unexplained.
TEST(BubbleAttribution, AllToAllsAndFetchesShowAsCollectiveWaits) {
  std::map<std::string, std::int64_t> collective;
  for (const char* preset : {"piper", "piper-baseline", "nestpipe", "nestpipe-baseline"}) {
    SCOPED_TRACE(preset);
    const trace::RunTrace run = simulateToTrace(test::presetSpec(preset));
    expectPartsSumToIdle(run);
    const trace::StepGraph graph(run);
    const auto a = trace::attributeBubbles(graph);
    EXPECT_GT(a.run[IdleCause::Collective], 0);
    EXPECT_EQ(a.run[IdleCause::Other], 0) << "every idle ns has a recorded cause";
    collective[preset] = a.run[IdleCause::Collective];
  }
  // Serial all-to-alls and fetches hold the ranks longer than overlapped ones.
  EXPECT_GT(collective["piper-baseline"], 2 * collective["piper"]);
  EXPECT_GT(collective["nestpipe-baseline"], 2 * collective["nestpipe"]);
}

// The index the analyses use answers exactly as the scanning functions the app's clicks use.
TEST(RelationIndex, AgreesWithTheScansOnEveryGenerator) {
  for (const auto& info : scheduleRegistry()) {
    SCOPED_TRACE(info.name);
    PlanSpec spec = specFor(info.name);
    spec.uniform.linkGbps = 8;
    const trace::RunTrace run = simulateToTrace(spec);
    const trace::RelationIndex index(run);
    std::size_t checked = 0;
    for (std::size_t r = 0; r < run.ranks.size(); ++r)
      for (int l = 0; l < trace::kLaneCount; ++l)
        for (std::size_t i = 0; i < run.ranks[r].lanes[l].size(); ++i) {
          const trace::OpRef op{static_cast<int>(r), static_cast<trace::Lane>(l), i};
          auto a = index.inputs(op), b = trace::opInputs(run, op);
          auto key = [](const trace::OpRef& x) { return std::tie(x.rank, x.lane, x.index); };
          auto less = [&](const trace::OpRef& x, const trace::OpRef& y) { return key(x) < key(y); };
          std::sort(a.begin(), a.end(), less);
          std::sort(b.begin(), b.end(), less);
          EXPECT_EQ(a, b);
          EXPECT_EQ(index.matchingTransfer(op), trace::matchingTransfer(run, op));
          ++checked;
        }
    EXPECT_GT(checked, 100u);
  }
}

TEST(CriticalPath, SpansTheStepOnEveryGenerator) {
  for (const auto& info : scheduleRegistry()) {
    SCOPED_TRACE(info.name);
    PlanSpec spec = specFor(info.name);
    spec.uniform.linkGbps = 8;
    const trace::RunTrace run = simulateToTrace(spec);
    const trace::StepGraph graph(run);
    for (std::size_t k = 0; k < graph.steps().size(); ++k) {
      const auto path = trace::criticalPath(graph, k);
      ASSERT_TRUE(path.has_value());
      EXPECT_EQ(path->lengthNs, graph.extent(k).span()) << "step " << graph.steps()[k];
      // In time order: each op starts no earlier than the one before it.
      for (std::size_t i = 1; i < path->ops.size(); ++i) {
        const auto& a = path->ops[i - 1];
        const auto& b = path->ops[i];
        EXPECT_LE(run.ranks[a.rank].lane(a.lane).start[a.index],
                  run.ranks[b.rank].lane(b.lane).start[b.index]);
      }
    }
  }
}

// With a slow link the step is set by the link: the forwards queue on 0 -> 1 (each send waits
// for the one before it), then the last micro-batch crosses every link down and its gradient
// every link back. The path holds every send of the first link and most of the step is transfer.
TEST(CriticalPath, PassesThroughASlowLinksTransfers) {
  PlanSpec spec = specFor("gpipe");
  spec.uniform.linkGbps = 1;  // 1 MiB in 8.4 ms against 1 µs forwards
  const trace::RunTrace run = simulateToTrace(spec);
  const trace::StepGraph graph(run);
  const auto path = trace::longestStepCriticalPath(graph);
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->lengthNs, graph.extent(0).span());
  int sendsOnFirstLink = 0;
  std::set<int> receivedOn;
  std::int64_t transferNs = 0;
  for (const auto& op : path->ops) {
    const auto& c = run.ranks[op.rank].lane(op.lane);
    const auto kind = c.kind[op.index];
    sendsOnFirstLink += kind == trace::OpKind::SEND_F && op.rank == 0;
    if (trace::isRecv(kind)) receivedOn.insert(op.rank);
    if (trace::isSend(kind)) transferNs += c.duration(op.index);
  }
  EXPECT_EQ(sendsOnFirstLink, 8);
  EXPECT_EQ(receivedOn, (std::set<int>{0, 1, 2, 3}));
  EXPECT_GT(double(transferNs), 0.9 * double(path->lengthNs));
}

}  // namespace
}  // namespace ps::runtime
