// The validator's messages and the simulator's timing rules on hand-written plans.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Validator.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/PlanTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

CostModel uniform(int layers, double fwdUs = 1, double bwdUs = 2, double wgradUs = 1,
                  double actMb = 0, std::optional<double> gbps = std::nullopt,
                  double latencyUs = 0) {
  UniformCostFlags f;
  f.layers = layers;
  f.fwdUs = fwdUs;
  f.bwdUs = bwdUs;
  f.wgradUs = wgradUs;
  f.actMb = actMb;
  f.linkGbps = gbps;
  f.linkLatencyUs = latencyUs;
  auto m = uniformCostModel(f);
  EXPECT_TRUE(m.ok()) << m.error();
  return *m;
}

SimResult simulateOk(const Plan& plan, const CostModel& cost) {
  auto graph = validatePlan(plan);
  EXPECT_TRUE(graph.ok()) << graph.error();
  auto result = simulate(plan, *graph, cost);
  EXPECT_TRUE(result.ok()) << result.error();
  return std::move(*result);
}

TEST(Validator, AcceptsHandWritten1F1B) {
  for (int p = 1; p <= 5; ++p)
    for (int m = 1; m <= 6; ++m)
      EXPECT_TRUE(validatePlan(test::oneFOneB(p, m)).ok()) << p << " " << m;
}

TEST(Validator, NamesTheRanksAndOpsOfADeadlock) {
  // rank 1 runs B0 before F1, but F1's forward for rank 1 must come from rank 0 after its B0,
  // which needs rank 1's B0 ... rank 0 waits for 1B0; rank 1 waits for 0F1 (after 0B0).
  const Plan plan =
      test::chainPlan(2, 2, {{"0F0", "0B0", "0F1", "0B1"}, {"1F1", "1F0", "1B0", "1B1"}});
  auto g = validatePlan(plan);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.error(), HasSubstr("deadlock"));
  EXPECT_THAT(g.error(), HasSubstr("rank 0 waits for 1B0 which rank 1 schedules after 1F1"));
  EXPECT_THAT(g.error(), HasSubstr("rank 1 waits for 0F1 which rank 0 schedules after 0B0"));
}

TEST(Validator, MissingDuplicateUnknownAndMisplacedOps) {
  auto missing = validatePlan(test::chainPlan(2, 1, {{"0F0", "0B0"}, {"1F0"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error(), HasSubstr("missing ops: 1B0 (rank 1)"));

  auto dup = validatePlan(test::chainPlan(2, 1, {{"0F0", "0F0", "0B0"}, {"1F0", "1B0"}}));
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.error(), HasSubstr("duplicate op 0F0"));

  auto unknown = validatePlan(test::chainPlan(2, 1, {{"0F0", "0B0", "5F0"}, {"1F0", "1B0"}}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error(), HasSubstr("rank 0: 5F0 names unknown stage 5"));

  auto misplaced = validatePlan(test::chainPlan(2, 1, {{"0F0", "0B0", "1F0"}, {"1B0"}}));
  ASSERT_FALSE(misplaced.ok());
  EXPECT_THAT(misplaced.error(),
              HasSubstr("rank 0: runs 1F0 but stage 1 (replica 0) is placed on rank 1"));

  auto mb = validatePlan(test::chainPlan(2, 1, {{"0F0", "0B0", "0F3"}, {"1F0", "1B0"}}));
  ASSERT_FALSE(mb.ok());
  EXPECT_THAT(mb.error(), HasSubstr("unknown micro-batch 3"));
}

TEST(Simulator, OneFOneBBubbleIsClosedForm) {
  for (int p : {2, 3, 4, 8})
    for (int m : {1, 4, 8, 13}) {
      const Plan plan = test::oneFOneB(p, m);
      const SimResult r = simulateOk(plan, uniform(p));
      // Span (m + p - 1)(F + B) = 3t(m+p-1) with t = 1 µs; every rank is busy 3tm.
      EXPECT_EQ(r.makespan, 3000 * (m + p - 1)) << p << " " << m;
    }
}

TEST(Simulator, TransfersTakeBytesOverBandwidthPlusLatencyAndDelayTheConsumer) {
  // 2 stages, 1 micro-batch, 1 MiB activations, 8 Gb/s = 1 byte/ns, 5 µs latency.
  const Plan plan = test::chainPlan(2, 1, {{"0F0", "0B0"}, {"1F0", "1B0"}});
  const CostModel cost = uniform(2, 10, 20, 10, 1.0, 8.0, 5.0);
  const SimResult r = simulateOk(plan, cost);
  const std::int64_t bytes = 1 << 20, transfer = bytes /*ns at 1 B/ns*/ + 5000;
  // F0 on rank 0: [0, 10 µs); F0 on rank 1 starts when the activation arrives.
  std::int64_t f1Start = -1, b0Start = -1;
  bool sawSend = false, sawRecv = false;
  for (const auto& op : allRecords(r)) {
    if (op.rank == 1 && op.kind == OpKind::F) f1Start = op.start_ns;
    if (op.rank == 0 && op.kind == OpKind::B) b0Start = op.start_ns;
    if (op.kind == OpKind::SEND_F) {
      sawSend = true;
      EXPECT_EQ(op.start_ns, 10000);
      EXPECT_EQ(op.end_ns, 10000 + bytes);
      EXPECT_EQ(op.peer_rank, 1);
      EXPECT_EQ(op.bytes, bytes);
    }
    if (op.kind == OpKind::RECV_F) {
      sawRecv = true;
      EXPECT_EQ(op.end_ns, 10000 + transfer);
    }
  }
  EXPECT_TRUE(sawSend && sawRecv);
  EXPECT_EQ(f1Start, 10000 + transfer);
  // rank 1: F [.., +10 µs), B [.., +20 µs), then the gradient travels back.
  EXPECT_EQ(b0Start, f1Start + 10000 + 20000 + transfer);
}

TEST(Simulator, LinkIsOccupiedByOneTransferAtATime) {
  // Two micro-batches' forwards leave rank 0 at 1 µs and 2 µs; each transfer occupies the link
  // 10 µs, so the second must wait for the first: arrivals at 11 µs and 21 µs.
  const Plan plan =
      test::chainPlan(2, 2, {{"0F0", "0F1", "0B0", "0B1"}, {"1F0", "1F1", "1B0", "1B1"}});
  UniformCostFlags f;
  f.layers = 2;
  f.fwdUs = 1;
  f.bwdUs = 2;
  f.wgradUs = 1;
  f.actMb = 10000.0 / (1 << 20);  // 10000 bytes
  f.linkGbps = 8.0;               // 1 byte/ns → 10 µs
  auto cost = uniformCostModel(f);
  ASSERT_TRUE(cost.ok());
  const SimResult r = simulateOk(plan, *cost);
  std::vector<std::int64_t> arrivals;
  for (const auto& op : allRecords(r))
    if (op.kind == OpKind::RECV_F) arrivals.push_back(op.end_ns);
  std::sort(arrivals.begin(), arrivals.end());
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_EQ(arrivals[0], 11000);
  EXPECT_EQ(arrivals[1], 21000);
}

TEST(Simulator, OneFOneBKeepsAtMostPMinusRActivationsInFlight) {
  const int p = 4, m = 8;
  const SimResult r = simulateOk(test::oneFOneB(p, m), uniform(p, 1, 2, 1, 1.0));
  for (int rank = 0; rank < p; ++rank)
    EXPECT_EQ(r.peakActivationBytes[rank], std::min(p - rank, m) * (std::int64_t{1} << 20)) << rank;
}

TEST(Simulator, BarrierMakesTheNextStepWaitForEveryRank) {
  const Plan one = test::oneFOneB(2, 2);
  auto barrier = repeatSteps(one, 2, OptimizerSync::Barrier);
  auto none = repeatSteps(one, 2, OptimizerSync::None);
  ASSERT_TRUE(barrier.ok() && none.ok());
  const SimResult rb = simulateOk(*barrier, uniform(2));
  const SimResult rn = simulateOk(*none, uniform(2));
  // With a barrier, step 1 starts on rank 0 only after rank 0's last B of step 0 (which is the
  // last op of the step anyway) — and after rank 1's; without it rank 1 may start earlier.
  EXPECT_EQ(rb.makespan, 2 * 3000 * 3);
  EXPECT_LE(rn.makespan, rb.makespan);
}

}  // namespace
}  // namespace ps::runtime

namespace ps::runtime {
namespace {

TEST(Simulator, RecomputeTradesTimeForActivationMemory) {
  // Two layers per stage: a stage keeps 2 units of activations per micro-batch, or only its
  // 1-unit input under recompute (plus 2 units while one micro-batch is recomputed).
  const int p = 4, m = 8;
  Plan plain = test::oneFOneB(p, m);
  plain.numLayers = 2 * p;
  for (int s = 0; s < p; ++s)
    plain.placement[0][s] = {s, 2 * s, 2 * s + 1};
  Plan recompute = plain;
  addRecompute(recompute);
  const CostModel cost = uniform(2 * p, 1, 2, 1, 1.0);
  const SimResult a = simulateOk(plain, cost);
  const SimResult b = simulateOk(recompute, cost);
  const std::int64_t unit = std::int64_t{1} << 20;
  EXPECT_EQ(a.peakActivationBytes[0], 2 * unit * p);         // 4 in flight × 2 units
  EXPECT_EQ(b.peakActivationBytes[0], unit * p + 2 * unit);  // 4 inputs + one recomputed
  EXPECT_GT(b.makespan, a.makespan);
}

}  // namespace
}  // namespace ps::runtime

namespace ps::runtime {
namespace {

TEST(Simulator, StageBoundariesSendTheLayersOutputBytesWhenKnown) {
  const Plan plan = test::chainPlan(2, 1, {{"0F0", "0B0"}, {"1F0", "1B0"}});
  CostModel cost = uniform(2, 10, 20, 10, 1.0, 8.0, 0.0);  // 1 MiB activations, 1 B/ns
  cost.layers[0].outputBytes = 1000;                       // but only 1000 bytes leave layer 0
  const SimResult r = simulateOk(plan, cost);
  bool sawSend = false;
  for (const auto& op : allRecords(r))
    if (op.kind == OpKind::SEND_F) {
      sawSend = true;
      EXPECT_EQ(op.bytes, 1000);
      EXPECT_EQ(op.end_ns - op.start_ns, 1000);
    }
  EXPECT_TRUE(sawSend);
}

}  // namespace
}  // namespace ps::runtime
