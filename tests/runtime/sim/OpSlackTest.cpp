// Slack per op (issue 36 §3) against brute force: for every synchronous generator on a small
// plan, each pipeline op of the simulated run made longer by exactly its slack leaves the step's
// end where it was, and by one ns more moves it; ops on the critical path have zero slack.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>

#include "runtime/run/PlanBuilder.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/OpSlack.h"
#include "trace/analysis/StepGraph.h"

namespace ps::runtime {
namespace {

// The end of the step's last compute op (one step from time 0: its step time).
std::int64_t stepEnd(const BuiltPlan& built, const CostModel& cost) {
  auto sim = simulate(built.plan, built.graph, cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  std::int64_t end = 0;
  if (sim.ok())
    for (const SimRecord& r : sim->records)
      if (trace::isCompute(r.kind)) end = std::max(end, r.end_ns);
  return end;
}

// Two cost shapes: transfers with latency on equal ranks, and free transfers (a send and its
// receive end together) with the last rank four times slower than the others.
PlanSpec smallPlan(const std::string& schedule, bool skewed) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = 4;
  spec.microbatches = 8;
  const bool chunked = schedule == "interleaved-1f1b" || schedule == "looped-bfs" ||
                       schedule == "zb-v" || schedule == "dualpipe-v";
  spec.chunks = chunked ? 2 : 1;
  if (skewed)
    spec.rankSpeed = {2, 2, 2, 0.5};
  else
    spec.uniform.linkLatencyUs = 7;  // transfers take time: their lag counts
  return spec;
}

TEST(OpSlack, EveryOpsSlackIsExactAgainstStretchingIt) {
  int generators = 0;
  for (const ScheduleInfo& info : scheduleRegistry())
    for (bool skewed : {false, true}) {
      if (info.asynchronous) continue;
      SCOPED_TRACE(skewed ? "skewed ranks, free links" : "equal ranks, 7 us latency");
      const PlanSpec spec = smallPlan(info.name, skewed);
      auto built = buildPlan(spec);
      if (!built.ok()) continue;  // constraints this shape does not meet (said by name elsewhere)
      ++generators;
      const trace::RunTrace run = test::simulateThroughTraceFile(spec);
      const trace::StepGraph graph(run);
      const trace::OpSlackTable slack = trace::opSlack(graph);
      const std::int64_t end = stepEnd(*built, built->cost);
      {
        CostModel probe = built->cost;
        probe.opExtraNs[{99, 0, 0, 0}] = 0;
        EXPECT_EQ(stepEnd(*built, probe), end) << info.name << " unrelated what-if";
      }
      int checked = 0;
      for (std::size_t r = 0; r < run.ranks.size(); ++r) {
        const trace::OpColumns& c = run.ranks[r].lane(trace::Lane::Compute);
        for (std::size_t i = 0; i < c.size(); ++i) {
          if (!trace::isPipelineCompute(c.kind[i])) continue;
          const std::int64_t s = slack.compute[r][i];
          ASSERT_GE(s, 0) << info.name;
          CostModel cost = built->cost;
          const auto key =
              std::make_tuple(c.stage[i], static_cast<int>(c.kind[i]), c.microbatch[i], c.step[i]);
          cost.opExtraNs[key] = s;
          EXPECT_EQ(stepEnd(*built, cost), end)
              << info.name << " rank " << r << " op " << i << " slack " << s << " is too much";
          cost.opExtraNs[key] = s + 1;
          EXPECT_GT(stepEnd(*built, cost), end)
              << info.name << " rank " << r << " op " << i << " slack " << s << " is too little";
          ++checked;
        }
      }
      EXPECT_GT(checked, 0) << info.name;
      // The critical path's compute ops have none.
      const auto path = trace::longestStepCriticalPath(graph);
      ASSERT_TRUE(path.has_value()) << info.name;
      for (const trace::OpRef& op : path->ops)
        if (op.lane == trace::Lane::Compute) {
          EXPECT_EQ(slack.compute[op.rank][op.index], 0);
        }
    }
  EXPECT_GE(generators, 20);
}

}  // namespace
}  // namespace ps::runtime
