// Issue 30 item 7: the collectives that set a step (the gradient all-reduce before the optimizer
// step under --dp, Piper's all-to-alls, NestPipe's fetches) are on the critical path, and the
// time a rank waits for its own collective is "collective", not "barrier".

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/StepGraph.h"

namespace ps::runtime {
namespace {

using trace::IdleCause;
using trace::OpKind;

// `sim --schedule 1f1b --stages 4 --microbatches 8 --dp 2 --param-mb 50 --link-gbps 100`:
// a 4.19 ms all-reduce in a 6.29 ms step.
PlanSpec allReduceSpec() {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.dataParallel = 2;
  spec.uniform.paramMb = 50;
  spec.uniform.linkGbps = 100;
  return spec;
}

OpKind kindOf(const trace::RunTrace& run, const trace::OpRef& op) {
  return run.ranks[op.rank].lane(op.lane).kind[op.index];
}

// The ops' intervals leave no hole between the path's first start and last end: every moment of
// the step is spent in some op of the path.
std::int64_t holesInPath(const trace::RunTrace& run, const trace::CriticalPath& path) {
  std::int64_t holes = 0, reached = 0;
  bool first = true;
  for (const auto& op : path.ops) {
    const auto& c = run.ranks[op.rank].lane(op.lane);
    if (!first && c.start[op.index] > reached) holes += c.start[op.index] - reached;
    reached = first ? c.end[op.index] : std::max(reached, c.end[op.index]);
    first = false;
  }
  return holes;
}

TEST(CollectiveWaits, TheAllReduceThatGatesTheOptimizerIsOnTheCriticalPath) {
  const trace::RunTrace run = test::simulateThroughTraceFile(allReduceSpec());
  const trace::StepGraph graph(run);
  ASSERT_EQ(graph.steps().size(), 1u);
  const auto path = trace::longestStepCriticalPath(graph);
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->lengthNs, graph.extent(0).span());
  ASSERT_GE(path->ops.size(), 3u);
  // ... → the last B → AR → OPT: the all-reduce is the step's last wait.
  const auto& ops = path->ops;
  EXPECT_EQ(kindOf(run, ops.back()), OpKind::OPT);
  const trace::OpRef ar = ops[ops.size() - 2];
  ASSERT_EQ(kindOf(run, ar), OpKind::AR);
  EXPECT_EQ(ar.rank, ops.back().rank);
  EXPECT_EQ(kindOf(run, ops[ops.size() - 3]), OpKind::B);
  EXPECT_EQ(holesInPath(run, *path), 0);
  const auto& c = run.ranks[ar.rank].lane(ar.lane);
  // 2 × 50 MiB of one stage's parameters over a 100 Gb/s link: 4.19 ms of a 6.29 ms step.
  EXPECT_EQ(c.duration(ar.index), 4194304);
  EXPECT_EQ(path->lengthNs, 6294304);
}

TEST(CollectiveWaits, WaitingForTheOwnAllReduceIsCollectiveNotBarrier) {
  const trace::RunTrace run = test::simulateThroughTraceFile(allReduceSpec());
  const trace::StepGraph graph(run);
  const auto a = trace::attributeBubbles(graph);
  ASSERT_EQ(a.ranks.size(), 8u);
  std::int64_t allReduceNs = 0;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const auto& c = run.ranks[r].lane(trace::Lane::Collective);
    std::int64_t own = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c.kind[i] == OpKind::AR) own += c.duration(i);
    EXPECT_EQ(own, 4194304) << "rank " << r;
    EXPECT_EQ(a.ranks[r][IdleCause::Collective], own) << "rank " << r;
    EXPECT_EQ(a.ranks[r][IdleCause::Barrier], 0) << "rank " << r;
    allReduceNs += own;
  }
  // Of the run's idle time in points of the step: the all-reduce's 4.19 ms of 6.29 ms.
  const double share = double(a.run[IdleCause::Collective]) / double(a.spanSumNs * 8);
  EXPECT_NEAR(share, 4194304.0 / 6294304.0, 1e-12);
  EXPECT_NEAR(share, 0.6664, 1e-4);
  EXPECT_EQ(a.run[IdleCause::Collective], allReduceNs);
}

// Serial all-to-alls and fetches hold the compute stream; overlapped ones can hold a producer's
// output or a forward's input: the path runs through them, without a hole.
TEST(CollectiveWaits, AllToAllsAndFetchesAreOnTheCriticalPath) {
  for (const char* preset : {"piper", "piper-baseline", "nestpipe", "nestpipe-baseline"}) {
    SCOPED_TRACE(preset);
    const trace::RunTrace run = test::simulateThroughTraceFile(test::presetSpec(preset));
    const trace::StepGraph graph(run);
    for (std::size_t k = 0; k < graph.steps().size(); ++k) {
      const auto path = trace::criticalPath(graph, k);
      ASSERT_TRUE(path.has_value());
      EXPECT_EQ(path->lengthNs, graph.extent(k).span());
      EXPECT_EQ(holesInPath(run, *path), 0) << "step " << graph.steps()[k];
      const auto collectives = std::count_if(path->ops.begin(), path->ops.end(), [&](auto& op) {
        return kindOf(run, op) == OpKind::A2A;
      });
      if (std::string(preset).ends_with("baseline")) {
        EXPECT_GT(collectives, 0);
      }
    }
  }
}

}  // namespace
}  // namespace ps::runtime
