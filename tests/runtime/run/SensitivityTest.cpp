// The sensitivity table (runtime/run/Sensitivity): re-simulating a plan with one op kind of one
// stage 10 % faster finds the bottleneck stage of a skewed pipeline.

#include <gtest/gtest.h>

#include <memory>

#include "runtime/run/PlanBuilder.h"
#include "runtime/run/Sensitivity.h"
#include "runtime/sim/Simulator.h"
#include "trace/RunTrace.h"

namespace ps::runtime {
namespace {

BuiltPlan onefonebWithSlowRank(int slow) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.uniform.fwdUs = 100;
  spec.uniform.bwdUs = 200;
  spec.uniform.wgradUs = 100;
  UniformCostFlags flags = spec.uniform;
  flags.layers = 4;
  auto model = uniformCostModel(flags);
  EXPECT_TRUE(model.ok());
  auto cost = std::make_shared<CostModel>(*model);
  cost->ranks.resize(4);
  if (slow >= 0) cost->ranks[slow].speed = 1.0 / 1.5;
  spec.costs = cost;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  return std::move(*built);
}

// Rank 2 is 1.5x slower: its backward is the op to speed up, then its forward; a 10 % faster op
// elsewhere saves little or nothing.
TEST(Sensitivity, TheSlowStagesBackwardComesFirst) {
  auto rows = stepSensitivity(onefonebWithSlowRank(2));
  ASSERT_TRUE(rows.ok()) << rows.error();
  ASSERT_EQ(rows->size(), 8u);  // F and B of four stages
  EXPECT_EQ((*rows)[0].stage, 2);
  EXPECT_EQ((*rows)[0].kind, trace::OpKind::B);
  EXPECT_EQ((*rows)[1].stage, 2);
  EXPECT_EQ((*rows)[1].kind, trace::OpKind::F);
  EXPECT_GT((*rows)[0].savedNs, (*rows)[1].savedNs);
  for (std::size_t i = 2; i < rows->size(); ++i)
    EXPECT_LT((*rows)[i].savedNs, (*rows)[1].savedNs) << "row " << i;
  for (const auto& r : *rows)
    EXPECT_EQ(r.stepNs + r.savedNs, (*rows)[0].stepNs + (*rows)[0].savedNs);  // one baseline
}

// Equal stages: the first and last stages' ops lie on the fill and the drain, every row saves
// something and none is negative.
TEST(Sensitivity, EveryRowSavesSomethingOnEqualStages) {
  auto rows = stepSensitivity(onefonebWithSlowRank(-1));
  ASSERT_TRUE(rows.ok()) << rows.error();
  for (const auto& r : *rows)
    EXPECT_GT(r.savedNs, 0) << opKindName(r.kind) << " stage " << r.stage;
}

// A recorded run's own times: the plan's flags say the stages are equal, the run (here a
// simulation with rank 2 at 1/1.5 the speed, as a measured run would show it) says stage 2 is
// slow; with its measured costs the table finds stage 2, with the flags' it cannot.
TEST(Sensitivity, MeasuredCostsComeFromTheRunsOwnOps) {
  const BuiltPlan slow = onefonebWithSlowRank(2);
  auto sim = simulate(slow.plan, slow.graph, slow.cost);
  ASSERT_TRUE(sim.ok()) << sim.error();
  trace::RunTrace run;
  run.ranks.resize(4);
  for (const SimRecord& r : sim->records)
    run.ranks[r.rank]
        .lane(trace::Lane::Compute)
        .push(r.start_ns, r.end_ns, r.kind, r.stage, r.microbatch, r.step, -1, -1, -1);
  BuiltPlan flags = onefonebWithSlowRank(-1);
  useMeasuredCosts(flags, run);
  EXPECT_DOUBLE_EQ(flags.cost.layers[2].fwdNs, 150e3);  // 100 µs at 1/1.5 the speed
  EXPECT_DOUBLE_EQ(flags.cost.layers[0].fwdNs, 100e3);
  EXPECT_DOUBLE_EQ(flags.cost.layers[2].inputGradNs + flags.cost.layers[2].weightGradNs, 300e3);
  auto rows = stepSensitivity(flags);
  ASSERT_TRUE(rows.ok()) << rows.error();
  EXPECT_EQ((*rows)[0].stage, 2);
  EXPECT_EQ((*rows)[0].kind, trace::OpKind::B);
}

}  // namespace
}  // namespace ps::runtime
