// TiMePReSt's nF1B (--schedule nf1b, issue 35 item 7): asynchronous 1F1B over whole mini-batches.
// Each rank forwards a mini-batch's micro-batches one after another, then runs the backward of its
// oldest mini-batch (all of its micro-batches) and updates; the order is the paper's Fig. 2c
// (p 3, n 2). It trains on the cpu backend with the latest weights (TiMePReSt) or the stash, and
// its memory shows both the stash it drops and the whole mini-batches it keeps in flight.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

// A rank's program as "F0 F0 B0 B0 O0 ...": each op's kind and its step (mini-batch).
std::string order(const std::vector<Action>& program) {
  std::string out;
  for (const Action& a : program) {
    if (!out.empty()) out += ' ';
    out += a.kind == OpKind::OPT ? "O" : a.kind == OpKind::F ? "F" : "B";
    out += std::to_string(a.step);
  }
  return out;
}

TEST(NF1B, EachRankForwardsWholeMiniBatchesThenTakesTheOldestBackward) {
  auto plan = generateSchedule("nf1b", {3, 2, 1, 4});
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan->versioning, WeightVersioning::Stashed);
  EXPECT_EQ(plan->optimizerSync, OptimizerSync::None);
  // Fig. 2c: stage 1 F1 F2 F3 B1 F4 B2, stage 2 F1 F2 B1 F3 B2 F4, stage 3 F1 B1 F2 B2 F3.
  EXPECT_EQ(order(plan->programs[0]),
            "F0 F0 F1 F1 F2 F2 B0 B0 O0 F3 F3 B1 B1 O1 B2 B2 O2 B3 B3 O3");
  EXPECT_EQ(order(plan->programs[1]),
            "F0 F0 F1 F1 B0 B0 O0 F2 F2 B1 B1 O1 F3 F3 B2 B2 O2 B3 B3 O3");
  EXPECT_EQ(order(plan->programs[2]),
            "F0 F0 B0 B0 O0 F1 F1 B1 B1 O1 F2 F2 B2 B2 O2 F3 F3 B3 B3 O3");
  // A mini-batch's micro-batches in order, forward and backward.
  EXPECT_EQ(plan->programs[0][0].microbatch, 0);
  EXPECT_EQ(plan->programs[0][1].microbatch, 1);
  EXPECT_EQ(plan->programs[0][6].microbatch, 0);
  EXPECT_EQ(plan->programs[0][7].microbatch, 1);
}

PlanSpec nf1b(const std::string& versions, const std::string& schedule = "nf1b") {
  PlanSpec spec = test::asyncPipedream(4, versions);
  spec.schedule = schedule;
  spec.uniform.actMb = 8;
  return spec;
}

TEST(NF1B, TrainsOnTheCpuBackendOnTheLatestWeightsOrTheStash) {
  const auto none = [](CpuRunOptions&) {};
  const auto latest = test::tinySgdLosses(nf1b("latest"), none);
  const auto stash = test::tinySgdLosses(nf1b("stash"), none);
  ASSERT_EQ(latest.size(), 6u);
  ASSERT_EQ(stash.size(), 6u);
  EXPECT_LT(latest.back(), latest.front());
  EXPECT_LT(stash.back(), stash.front());
  EXPECT_GT(std::abs(latest.back() - stash.back()), 1e-5 * stash.back());
  // Not PipeDream's order: its micro-batches' backwards see other updates.
  const auto pipedream = test::tinySgdLosses(nf1b("latest", "pipedream"), none);
  ASSERT_EQ(pipedream.size(), 6u);
  EXPECT_GT(std::abs(latest.back() - pipedream.back()), 1e-5 * pipedream.back());
}

TEST(NF1B, DropsTheStashButKeepsWholeMiniBatchesInFlight) {
  const auto peak = [](const PlanSpec& spec) {
    auto built = buildPlan(spec);
    EXPECT_TRUE(built.ok()) << built.error();
    auto sim = simulate(built->plan, built->graph, built->cost);
    EXPECT_TRUE(sim.ok()) << sim.error();
    return sim.ok() ? sim->peakMemory[0] : -1;
  };
  EXPECT_LT(peak(nf1b("latest")), peak(nf1b("stash")));
  // Rank 0 holds p mini-batches' activations, PipeDream's order p micro-batches'.
  EXPECT_GT(peak(nf1b("latest")), peak(nf1b("latest", "pipedream")));
}

}  // namespace
}  // namespace ps::runtime
