// The communication-order doctor (issue 36 §2) on simulated runs: the `order` idle cause is the
// part of a wait during which a later op of the rank was ready, and the suggested move's gain,
// re-timed from the trace (StepRetime), is what the simulator gives for the reordered program.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "runtime/plan/Validator.h"
#include "runtime/run/OrderMoveSim.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/OrderDoctor.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/StepRetime.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {
namespace {

using trace::IdleCause;

PlanSpec spec(const std::string& schedule, int chunks = 1) {
  PlanSpec s;
  s.schedule = schedule;
  s.stages = 4;
  s.microbatches = 8;
  s.chunks = chunks;
  s.uniform.fwdUs = 1;
  s.uniform.bwdUs = 2;
  s.uniform.wgradUs = 1;
  s.uniform.actMb = 1;
  return s;
}

// Simulates a built plan (its programs possibly edited) through a trace file.
trace::RunTrace simulateBuilt(BuiltPlan built) {
  auto graph = validatePlan(built.plan);
  EXPECT_TRUE(graph.ok()) << graph.error();
  if (!graph.ok()) return {};
  built.graph = std::move(*graph);
  RunPlanRequest request;
  request.built = std::make_shared<const BuiltPlan>(std::move(built));
  request.name = "reordered";
  test::TempDir dir;
  auto store = trace::TraceStore::open(dir.file("run.sqlite"), trace::TraceStore::Mode::ReadWrite);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return {};
  auto ran = runPlan(request, {"", &*store});
  EXPECT_TRUE(ran.ok()) << ran.error();
  if (!ran.ok()) return {};
  auto run = trace::loadRun(*store, ran->runId.value_or(-1));
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : trace::RunTrace{};
}

std::int64_t stepSpan(const trace::RunTrace& run) {
  const trace::StepGraph g(run);
  return g.steps().empty() ? 0 : g.extent(0).span();
}

TEST(OrderDoctor, NoGeneratorWaitsOnItsOrderOnFreeLinks) {
  for (const auto& [schedule, chunks] :
       std::initializer_list<std::pair<const char*, int>>{{"gpipe", 1},
                                                          {"1f1b", 1},
                                                          {"interleaved-1f1b", 2},
                                                          {"zb-h1", 1},
                                                          {"zb-h2", 1},
                                                          {"zb-v", 2},
                                                          {"chimera", 1},
                                                          {"dualpipe-v", 2},
                                                          {"bitpipe", 2}}) {
    const trace::RunTrace run = test::simulateThroughTraceFile(spec(schedule, chunks));
    const trace::StepGraph g(run);
    const auto bubbles = trace::attributeBubbles(g);
    EXPECT_EQ(bubbles.run[IdleCause::Order], 0) << schedule;
    EXPECT_TRUE(trace::adviseOrderMoves(g, bubbles).empty()) << schedule;
    // Re-timed in its recorded order, a simulated step takes what it took.
    EXPECT_EQ(trace::retimedStepSpan(g, 0).value_or(-1), g.extent(0).span()) << schedule;
  }
}

// ZB-H1 with rank 1's weight-gradient ops held to the end of its step: it now waits for its
// I ops while a W is ready. The doctor says which W to move, and the reordered program,
// simulated, saves what it re-timed.
TEST(OrderDoctor, WeightGradientsHeldBackAreOrderWaitsAndTheMoveSavesWhatItSays) {
  auto built = buildPlan(spec("zb-h1"));
  ASSERT_TRUE(built.ok()) << built.error();
  auto& program = built->plan.programs[1];
  std::stable_partition(program.begin(), program.end(), [](const Action& a) {
    return a.kind != OpKind::W && a.kind != OpKind::OPT;
  });
  std::stable_partition(program.begin(), program.end(),
                        [](const Action& a) { return a.kind != OpKind::OPT; });
  auto heldGraph = validatePlan(built->plan);
  ASSERT_TRUE(heldGraph.ok()) << heldGraph.error();
  built->graph = std::move(*heldGraph);
  const trace::RunTrace held = simulateBuilt(*built);
  const trace::StepGraph g(held);
  const auto bubbles = trace::attributeBubbles(g);
  const std::int64_t order = bubbles.ranks[1][IdleCause::Order];
  EXPECT_GT(order, 0);
  EXPECT_EQ(bubbles.run[IdleCause::Order], order) << "only rank 1's order changed";
  // The parts still add up to the rank's idle time.
  const trace::RunAnalysis a = trace::analyzeRun(held);
  EXPECT_EQ(bubbles.ranks[1].total(), a.steps[0].span_ns() - a.steps[0].rank_busy_ns[1]);

  const auto moves = trace::adviseOrderMoves(g, bubbles);
  ASSERT_EQ(moves.size(), 1u);
  const trace::OrderMove& m = moves[0];
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.orderNs, order);
  EXPECT_EQ(held.ranks[1].lane(trace::Lane::Compute).kind[m.move.index], OpKind::W);
  ASSERT_GT(m.gainNs, 0);
  const OrderMoveActions actions = orderMoveActions(held, m.move, m.before);
  const auto gains = resimulateOrderMoves(*built, {actions});
  ASSERT_TRUE(gains.ok()) << gains.error();
  EXPECT_EQ(gains->front().value_or(-1), m.gainNs) << "free links: the re-timing is exact";
  ASSERT_TRUE(applyOrderMove(built->plan, actions));
  const trace::RunTrace moved = simulateBuilt(*built);
  EXPECT_EQ(stepSpan(held) - stepSpan(moved), m.gainNs);
}

// Over a slow link GPipe's last rank waits for the next activation with its backwards ready
// (GPipe runs every forward first by rule): an order wait. Re-timed from the trace, with each
// transfer's recorded flight, running B3 there looks like a gain; re-simulated, the link from
// rank 2 to rank 1 is what limits the backward chain, and the gradients B3 sends earlier only
// queue on it: the plan's simulation gives the true figure, the one `report` prints.
TEST(OrderDoctor, OverASlowLinkTheRunsPlanResimulatesTheMove) {
  PlanSpec s = spec("gpipe");
  s.uniform.linkGbps = 4000;  // 1 MiB in 2.1 µs: longer than a 1 µs forward
  auto built = buildPlan(s);
  ASSERT_TRUE(built.ok()) << built.error();
  const trace::RunTrace run = simulateBuilt(*built);
  const trace::StepGraph g(run);
  EXPECT_EQ(trace::retimedStepSpan(g, 0).value_or(-1), g.extent(0).span())
      << "re-timed in its recorded order, link queues as recorded";
  const auto moves = trace::adviseOrderMoves(g, trace::attributeBubbles(g));
  ASSERT_FALSE(moves.empty());
  const trace::OrderMove& m = moves[0];
  EXPECT_EQ(m.rank, 3);
  EXPECT_EQ(run.ranks[3].lane(trace::Lane::Compute).kind[m.move.index], OpKind::B);
  EXPECT_GT(m.gainNs, 0) << "the re-timing's figure";
  const OrderMoveActions actions = orderMoveActions(run, m.move, m.before);
  const auto gains = resimulateOrderMoves(*built, {actions});
  ASSERT_TRUE(gains.ok()) << gains.error();
  ASSERT_EQ(gains->size(), 1u);
  ASSERT_TRUE(gains->front().has_value());
  ASSERT_TRUE(applyOrderMove(built->plan, actions));
  const trace::RunTrace moved = simulateBuilt(*built);
  EXPECT_EQ(*gains->front(), stepSpan(run) - stepSpan(moved));
  EXPECT_LT(*gains->front(), m.gainNs) << "the link's queue eats the re-timed gain";
}

// A move the plan cannot make (an op it does not hold) is left to the re-timing.
TEST(OrderDoctor, AMoveOfAnOpThePlanDoesNotHoldIsNotResimulated) {
  auto built = buildPlan(spec("1f1b"));
  ASSERT_TRUE(built.ok()) << built.error();
  Action missing;
  missing.kind = OpKind::W;  // 1F1B's backward is whole: no W
  missing.stage = 0;
  missing.microbatch = 0;
  Action f0;
  f0.stage = 0;
  f0.microbatch = 0;
  const auto gains = resimulateOrderMoves(*built, {{0, missing, f0}});
  ASSERT_TRUE(gains.ok()) << gains.error();
  EXPECT_FALSE(gains->front().has_value());
}

}  // namespace
}  // namespace ps::runtime
