// Chimera with more micro-batches than stages (Li & Hoefler SC'21 §3.5): forward doubling, under
// the paper's assumption for it, B = 2F (here F = 1 µs, B = 2 µs per stage, free links, 1 MiB
// of activations per stage and micro-batch; "idle" is span − busy within the step, DESIGN §4).
//
// Worked out by hand for p = D = 4, m = N = 8 (two basic units, one doubled unit; micro-batches
// 0,1,4,5 go down, 2,3,6,7 up). The order, in slots of B = 2F (FF = a doubled forward slot):
//   rank 0: F0 F1 F4 F5 ..  F2 F3 B2 B3 F6 F7 B6 B7 B0 ..  B1 B4 B5
//   rank 1: .. F0 F1 F2 F3 F4 F5 F6 F7 B2 B3 B0 B6 B7 B1 B4 B5 ..
// (ranks 2 and 3 mirror 1 and 0): each rank has N/2 = 4 forward slots, N = 8 backward slots and
// the basic unit's D-2 = 2 idle slots, D/2-1 among the forwards and D/2-1 among the backwards:
// the paper's slot count, bubble ratio (D-2)/(3N/2+D-2) = 2/14. Run as ops (each forward its own
// op, started as soon as its input is there), a forward-phase idle slot only lasts F, since the
// pair's first forward starts when its own input arrives: rank 1 runs 1F0 at 1 µs, not 2 µs, and
// rank 0 runs 3F2 at 4 µs. Simulated: rank 1 busy over [1, 25), rank 0 over [0, 18) and
// [21, 27), span 27 µs, every rank idle (D/2-1)(F+B) = 3 µs. In general 3(p-2)/2 µs per rank
// out of a span of 3m + 3(p-2)/2, i.e. a bubble ratio of (D-2)/(2N+D-2) — the formula of the
// paper's Table 2 for Chimera, now with B = 2F — for every even number of basic units: the
// next doubled unit's forwards fill the previous unit's drain, without the intermediate bubbles
// of direct concatenation. 1F1B idles 3(p-1) µs per rank with the same costs.
// Memory: a doubled forward slot admits two micro-batches, so a rank holds twice what it holds in
// a basic unit: rank 0 above, F0 F1 F4 F5 F2 F3 in flight before B2 ends, 6 = 2(D/2+1); the
// middle ranks 2D = 8; never more than 2D (the paper: forward doubling "leads to two times
// activation memory consumption"). With more doubled units the first rank also holds some of the
// next unit's forwards while draining (p = 8: 11 instead of 10), still within 2D.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/plan/Validator.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

constexpr std::int64_t kChimeraUs = 1000;  // ns

struct ChimeraMeasured {
  test::StepMeasure step;
  std::vector<double> peak;  // stage activations per rank
};

ChimeraMeasured run(const std::string& name, int p, int m) {
  auto plan = generateSchedule(name, {p, m, 1, 1});
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return {};
  const CostModel cost = test::uniformCosts(plan->numLayers, 1, 2, 1);
  const SimResult sim = test::validateAndSimulate(*plan, cost);
  return {test::measureStep(*plan, sim), test::peakActivationUnits(*plan, cost, sim)};
}

TEST(ChimeraForwardDoubling, BubbleIsTheBasicUnitsForEveryEvenNumberOfUnits) {
  for (int p : {2, 4, 6, 8})
    for (int k : {2, 4, 6}) {
      const int m = k * p;
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      const ChimeraMeasured c = run("chimera", p, m);
      const ChimeraMeasured base = run("1f1b", p, m);
      EXPECT_EQ(c.step.spanNs, (3 * m + 3 * (p - 2) / 2) * kChimeraUs);
      EXPECT_NEAR(c.step.bubble, double(p - 2) / double(2 * m + p - 2), 1e-12);
      EXPECT_LE(c.step.bubble, double(p - 2) / (1.5 * m + p - 2) + 1e-12);  // the slot count
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(c.step.idleNs[r], 3 * (p - 2) / 2 * kChimeraUs) << "rank " << r;
        EXPECT_EQ(base.step.idleNs[r], 3 * (p - 1) * kChimeraUs) << "rank " << r;
      }
    }
}

TEST(ChimeraForwardDoubling, DoublesTheBasicUnitsActivations) {
  for (int p : {2, 4, 6, 8}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const ChimeraMeasured unit = run("chimera", p, p);  // one basic unit, B = 2F
    EXPECT_EQ(unit.peak[0], p / 2 + 1);
    for (int k : {2, 4, 6}) {
      const ChimeraMeasured c = run("chimera", p, k * p);
      for (int r = 0; r < p; ++r) {
        EXPECT_LE(c.peak[r], 2 * p) << "m=" << k * p << " rank " << r;
        if (k == 2) {
          EXPECT_LE(c.peak[r], 2 * unit.peak[r]) << "rank " << r;
        }
      }
      if (k == 2) {
        EXPECT_EQ(c.peak[0], 2 * unit.peak[0]);  // p + 2
        EXPECT_EQ(*std::max_element(c.peak.begin(), c.peak.end()), 2 * p);
      }
    }
  }
}

// Every forward runs back to back with the next micro-batch's forward on the same stage.
TEST(ChimeraForwardDoubling, ForwardsComeInPairs) {
  for (int p : {2, 4, 8}) {
    auto plan = generateSchedule("chimera", {p, 4 * p, 1, 1});
    ASSERT_TRUE(plan.ok()) << plan.error();
    for (int r = 0; r < p; ++r) {
      const auto& prog = plan->programs[r];
      int pairs = 0;
      for (std::size_t i = 0; i < prog.size(); ++i) {
        if (prog[i].kind != OpKind::F) continue;
        ASSERT_LT(i + 1, prog.size());
        EXPECT_EQ(prog[i + 1].kind, OpKind::F) << "rank " << r << " at " << i;
        EXPECT_EQ(prog[i + 1].stage, prog[i].stage) << "rank " << r << " at " << i;
        EXPECT_EQ(plan->replicaOf(prog[i + 1].microbatch), plan->replicaOf(prog[i].microbatch));
        ++pairs;
        ++i;
      }
      EXPECT_EQ(pairs, 2 * p) << "rank " << r;  // 4p micro-batches, one stage each
    }
  }
}

TEST(ChimeraForwardDoubling, RejectsMicroBatchCountsItDoesNotDefine) {
  using ::testing::HasSubstr;
  for (int m : {2, 6, 12, 20}) {
    auto plan = generateSchedule("chimera", {4, m, 1, 1});
    ASSERT_FALSE(plan.ok()) << "m=" << m;
    EXPECT_EQ(plan.error(),
              "chimera: needs m = p (one basic unit) or m a multiple of 2p (forward doubling "
              "pairs two units) (m=" +
                  std::to_string(m) + ", p=4)");
  }
  EXPECT_THAT(generateSchedule("chimera", {4, 7, 1, 1}).error(), HasSubstr("m even"));
  for (int m : {4, 8, 16, 24})
    EXPECT_TRUE(generateSchedule("chimera", {4, m, 1, 1}).ok()) << "m=" << m;
}

}  // namespace
}  // namespace ps::runtime
