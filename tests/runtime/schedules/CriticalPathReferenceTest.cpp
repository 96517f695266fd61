// Issue 30 item 15: the critical path walks StepGraph's precomputed neighbours (O(log n) a hop)
// instead of scanning the rank's step for each hop. The paths must be the ones the scanning walk
// found: its code is kept below as the reference, run on every generator (runs without
// collectives, where nothing else changed). And a long single-lane step (an imported trace of
// unstaged ops, each waiting only for the one before) walks to the end.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "runtime/schedules/Schedule.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/StepGraph.h"

namespace ps::runtime {
namespace {

using trace::Lane;
using trace::OpColumns;
using trace::OpRef;
using trace::RunTrace;
using trace::StepGraph;

// ---- The scanning walk as it was before (reference) ----
std::int64_t endOf(const RunTrace& run, const OpRef& op) {
  return run.ranks[op.rank].lane(op.lane).end[op.index];
}

std::optional<OpRef> scanPreviousOnRank(const StepGraph& g, const OpRef& op, std::size_t k) {
  const auto ops = g.ops(op.rank, k);
  const auto it = std::find(ops.begin(), ops.end(), op.index);
  if (it == ops.begin() || it == ops.end()) return std::nullopt;
  const OpColumns& c = g.run().ranks[op.rank].lane(Lane::Compute);
  std::size_t best = *(it - 1);
  for (auto j = ops.begin(); j != it; ++j)
    if (c.end[*j] > c.end[best]) best = *j;
  return OpRef{op.rank, Lane::Compute, best};
}

std::optional<OpRef> scanPreviousOnLink(const RunTrace& run, const OpRef& send) {
  const OpColumns& c = run.ranks[send.rank].lane(send.lane);
  for (std::size_t j = send.index; j-- > 0;)
    if (c.peer[j] == c.peer[send.index]) return OpRef{send.rank, send.lane, j};
  return std::nullopt;
}

OpRef scanLater(const RunTrace& run, std::optional<OpRef> a, std::optional<OpRef> b) {
  if (!a) return b ? *b : OpRef{};
  if (!b) return *a;
  return endOf(run, *b) > endOf(run, *a) ? *b : *a;
}

OpRef scanHeldBy(const StepGraph& g, const OpRef& op, std::size_t k) {
  const RunTrace& run = g.run();
  switch (op.lane) {
    case Lane::Compute: {
      const auto wait = g.latestInput(op);
      const auto prev = scanPreviousOnRank(g, op, k);
      if (wait && (!prev || wait->readyNs > endOf(run, *prev))) return wait->input;
      return prev ? *prev : OpRef{};
    }
    case Lane::Recv: {
      const auto send = g.relations().matchingTransfer(op);
      return send ? *send : OpRef{};
    }
    case Lane::Send: {
      std::optional<OpRef> producer;
      for (const OpRef& in : g.relations().inputs(op))
        producer = scanLater(run, producer, in);
      return scanLater(run, producer, scanPreviousOnLink(run, op));
    }
    default:
      return {};
  }
}

std::vector<OpRef> scanPath(const StepGraph& g, std::size_t k) {
  const RunTrace& run = g.run();
  OpRef last;
  std::int64_t lastEnd = INT64_MIN;
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (std::size_t i : g.ops(static_cast<int>(r), k))
      if (run.ranks[r].lane(Lane::Compute).end[i] > lastEnd) {
        lastEnd = run.ranks[r].lane(Lane::Compute).end[i];
        last = {static_cast<int>(r), Lane::Compute, i};
      }
  std::vector<OpRef> ops;
  const int step = g.steps()[k];
  std::size_t budget = run.opCount() + 1;
  for (OpRef cur = last; cur.valid() && budget-- > 0;) {
    ops.push_back(cur);
    cur = scanHeldBy(g, cur, k);
    if (cur.valid() && run.ranks[cur.rank].lane(cur.lane).step[cur.index] != step) break;
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}
// ---- end of the reference ----

PlanSpec specFor(const std::string& schedule, int mix) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = 4;
  spec.microbatches = 8;
  if (schedule == "interleaved-1f1b" || schedule == "looped-bfs") spec.chunks = 2;
  if (schedule == "zb-v" || schedule == "dualpipe-v") spec.chunks = 2;
  if (schedule == "pipedream" || schedule == "pipedream-2bw") spec.steps = 3;
  spec.uniform.fwdUs = 1;
  spec.uniform.bwdUs = mix == 1 ? 3 : 2;
  spec.uniform.wgradUs = 1;
  spec.uniform.actMb = 1;
  if (mix == 2) {
    spec.uniform.linkGbps = 1;
    spec.uniform.linkLatencyUs = 0.5;
  }
  return spec;
}

TEST(CriticalPathReference, EqualsTheScanningWalkOnEveryGenerator) {
  std::size_t compared = 0;
  for (const auto& info : scheduleRegistry())
    for (int mix = 0; mix < 3; ++mix) {
      SCOPED_TRACE(info.name + " mix " + std::to_string(mix));
      const RunTrace run = test::simulateThroughTraceFile(specFor(info.name, mix));
      const StepGraph graph(run);
      // Two-replica plans (Chimera, BitPipe) all-reduce before the OPT: the new walk goes
      // through the AR there (CollectiveWaitsTest), the old one jumped it.
      if (graph.hasCollectives()) continue;
      for (std::size_t k = 0; k < graph.steps().size(); ++k) {
        const auto path = trace::criticalPath(graph, k);
        ASSERT_TRUE(path.has_value());
        EXPECT_EQ(path->ops, scanPath(graph, k)) << "step " << graph.steps()[k];
        compared += path->ops.size();
      }
    }
  EXPECT_GT(compared, 1000u);
}

// 200,000 unstaged ops one after another on one rank (a Kineto import of one long step): the
// scanning walk took a scan of the step per hop (2·10^10 comparisons here); the path is every op.
TEST(CriticalPathReference, ALongSingleLaneStepIsWalkedToItsStart) {
  constexpr std::size_t kOps = 200000;
  RunTrace run;
  run.ranks.resize(1);
  OpColumns& c = run.ranks[0].lane(Lane::Compute);
  c.reserve(kOps);
  for (std::size_t i = 0; i < kOps; ++i) {
    const auto t = static_cast<std::int64_t>(i) * 10;
    c.push(t, t + 7, trace::OpKind::F, trace::kNoValue, trace::kNoValue, 0, trace::kNoValue,
           trace::kNoValue, trace::kNoValue);
  }
  const StepGraph graph(run);
  const auto path = trace::longestStepCriticalPath(graph);
  ASSERT_TRUE(path.has_value());
  ASSERT_EQ(path->ops.size(), kOps);
  EXPECT_EQ(path->ops.front().index, 0u);
  EXPECT_EQ(path->ops.back().index, kOps - 1);
  EXPECT_EQ(path->lengthNs, static_cast<std::int64_t>(kOps - 1) * 10 + 7);
}

}  // namespace
}  // namespace ps::runtime
