// The per-step table and the straggler verdicts (trace/analysis/StepTable, Stragglers) on
// hand-built GPipe runs: P ranks, one stage each, M forwards then M backwards per step, every op
// placed as early as its inputs and its rank allow, so who waits on whom is worked out by hand.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "tests/trace/TraceBuilder.h"
#include "trace/analysis/RunExplanation.h"
#include "trace/analysis/StepTable.h"
#include "trace/analysis/Stragglers.h"

namespace ps::trace {
namespace {

constexpr std::int64_t kF = 100, kB = 200;  // ns of one F and one B at speed 1

// slow(rank, step): how many times longer that rank's ops take in that step.
using Slowdown = std::function<double(int rank, int step)>;
// stall(rank, step, kind, mb): a further factor for one op.
using Stall = std::function<double(int rank, int step, OpKind kind, int mb)>;

// GPipe steps one after another (a gap of 50 ns between steps). `stage`: false writes ops
// without stage (an imported run that could not name them).
TraceBatch gpipe(int P, int M, int steps, const Slowdown& slow, bool stage = true,
                 const Stall& stall = {}) {
  TraceBatch b;
  std::int64_t t0 = 0;
  for (int k = 0; k < steps; ++k) {
    std::vector<std::int64_t> free(P, t0);
    std::vector<std::vector<std::int64_t>> fEnd(P, std::vector<std::int64_t>(M));
    std::vector<std::vector<std::int64_t>> bEnd(P, std::vector<std::int64_t>(M));
    const auto put = [&](int r, OpKind kind, int m, std::int64_t ready, std::int64_t base) {
      const std::int64_t s = std::max(ready, free[r]);
      const double factor = slow(r, k) * (stall ? stall(r, k, kind, m) : 1.0);
      const auto e = s + static_cast<std::int64_t>(static_cast<double>(base) * factor);
      OpRecord op = test::compute(r, kind, m, s, e, k);
      if (!stage) op.stage.reset();
      b.ops.push_back(op);
      free[r] = e;
      return e;
    };
    for (int m = 0; m < M; ++m)
      for (int r = 0; r < P; ++r)
        fEnd[r][m] = put(r, OpKind::F, m, r > 0 ? fEnd[r - 1][m] : t0, kF);
    for (int m = 0; m < M; ++m)
      for (int r = P - 1; r >= 0; --r)
        bEnd[r][m] = put(r, OpKind::B, m, r + 1 < P ? bEnd[r + 1][m] : fEnd[r][m], kB);
    t0 = *std::max_element(free.begin(), free.end()) + 50;
  }
  return b;
}

struct Judged {
  RunTrace run;
  StepTable table;
  StragglerTable stragglers;
};

Judged judge(int P, const TraceBatch& batch) {
  Judged j{test::roundTrip(test::simpleHeader(P), batch), {}, {}};
  const RunAnalysis a = analyzeRun(j.run);
  const RunExplanation why = explainRun(j.run);
  j.table = buildStepTable(a, why.bubbles);
  std::vector<int> steps;
  for (const StepStats& s : a.steps)
    steps.push_back(s.step);
  const StepGraph graph(j.run);
  j.stragglers = findStragglers(graph, why.bubbles, steps);
  return j;
}

TEST(Spread, MedianP90AndMaxOverSteps) {
  const Spread four = spreadOf({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(four.median, 2.5);
  EXPECT_DOUBLE_EQ(four.p90, 4);  // ⌈3.6⌉ = 4th smallest
  EXPECT_DOUBLE_EQ(four.max, 4);
  const Spread ten = spreadOf({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(ten.median, 5.5);
  EXPECT_DOUBLE_EQ(ten.p90, 9);  // 9th smallest
  const Spread none = spreadOf({});
  EXPECT_DOUBLE_EQ(none.max, 0);
}

TEST(StepTable, EachStepsCausesAddUpToItsBubble) {
  // P 2, M 1: rank 0 F [0,100) B [400,600); rank 1 F [100,200) B [200,400). Span 600.
  // Rank 0 idles [100,400) waiting for rank 1's B: 300; rank 1 warms up [0,100) and drains
  // [400,600): 100 + 200. Idle 600 of 2 × 600 -> bubble 0.5, warm-up 1/12, drain 1/6.
  const Judged j = judge(2, gpipe(2, 1, 3, [](int, int) { return 1.0; }));
  ASSERT_EQ(j.table.rows.size(), 3u);
  for (const StepRow& row : j.table.rows) {
    EXPECT_EQ(row.spanNs, 600);
    EXPECT_DOUBLE_EQ(row.bubbleRatio, 0.5);
    EXPECT_EQ(row.idle.total(), 600);
    EXPECT_EQ(row.idle[IdleCause::Warmup], 100);
    EXPECT_EQ(row.idle[IdleCause::Drain], 200);
    EXPECT_EQ(row.idle[IdleCause::Dependency], 300);
    double sum = 0;
    for (int c = 0; c < kIdleCauseCount; ++c)
      sum += row.share(static_cast<IdleCause>(c));
    EXPECT_DOUBLE_EQ(sum, row.bubbleRatio);
  }
  EXPECT_DOUBLE_EQ(j.table.spanNs.median, 600);
  EXPECT_DOUBLE_EQ(j.table.causeShare[static_cast<int>(IdleCause::Drain)].max, 200.0 / 1200.0);
}

TEST(StepTable, SpreadIsOverStepsOfDifferentLengths) {
  // Rank 1 twice as slow in step 1 only: F 200, B 400 -> span 100 + 200 + 400 + 200 = 900.
  const Judged j = judge(2, gpipe(2, 1, 3, [](int r, int k) { return r == 1 && k == 1 ? 2 : 1; }));
  ASSERT_EQ(j.table.rows.size(), 3u);
  EXPECT_EQ(j.table.rows[1].spanNs, 900);
  EXPECT_DOUBLE_EQ(j.table.spanNs.median, 600);
  EXPECT_DOUBLE_EQ(j.table.spanNs.max, 900);
  EXPECT_DOUBLE_EQ(j.table.spanNs.p90, 900);
}

TEST(Stragglers, AlwaysSlowRankIsTheCulpritAndTheOthersItsVictims) {
  const Judged j = judge(4, gpipe(4, 3, 10, [](int r, int) { return r == 2 ? 2.0 : 1.0; }));
  const StragglerTable& t = j.stragglers;
  ASSERT_EQ(t.steps.size(), 10u);
  ASSERT_EQ(t.ranks.size(), 4u);
  EXPECT_EQ(t.ranks[2].culpritSteps, 10);
  EXPECT_NEAR(t.ranks[2].slownessSum / 10, 2.0, 1e-9);
  EXPECT_EQ(t.ranks[2].excessSumNs, 10 * 3 * (kF + kB));  // it took twice its 900 ns
  EXPECT_EQ(t.flaggedRanks(), std::vector<int>{2});
  for (int r : {0, 1, 3}) {
    EXPECT_EQ(t.ranks[r].culpritSteps, 0) << r;
    EXPECT_EQ(t.ranks[r].victimSteps, 10) << r;
    EXPECT_GT(t.ranks[r].waitedSumNs, 0) << r;
  }
  EXPECT_EQ(t.ranks[2].victimSteps, 0);
  // GPipe's last op is rank 0's last B: it finishes last every step, as a victim, 200 ns after
  // rank 1 (its own last B).
  EXPECT_EQ(t.ranks[0].finishedLast, 10);
  EXPECT_EQ(t.ranks[0].lastAsVictim, 10);
  EXPECT_EQ(t.ranks[0].lastBySumNs, 10 * kB);
  for (const StepStragglers& s : t.steps)
    EXPECT_EQ(s.culprits(), std::vector<int>{2});
}

TEST(Stragglers, ASlowStepIsCaughtByItsStagesMedianAndNotFlagged) {
  // Rank 1 slow in step 3 only: culprit there alone; ranks 0 (its backward waits), 2 and 3 (their
  // forwards wait) are victims in that step and nowhere else. 1 of 10 steps is under 30 %.
  const Judged j =
      judge(4, gpipe(4, 2, 10, [](int r, int k) { return r == 1 && k == 3 ? 1.5 : 1.0; }));
  const StragglerTable& t = j.stragglers;
  EXPECT_EQ(t.ranks[1].culpritSteps, 1);
  EXPECT_TRUE(t.steps[3].ranks[1].culprit);
  EXPECT_TRUE(t.flaggedRanks().empty());
  for (int r : {0, 2, 3}) {
    EXPECT_EQ(t.ranks[r].victimSteps, 1) << r;
    EXPECT_TRUE(t.steps[3].ranks[r].victim) << r;
  }
  for (std::size_t k = 0; k < t.steps.size(); ++k)
    EXPECT_EQ(t.steps[k].culprits().empty(), k != 3) << k;
}

TEST(Stragglers, AStepWhereEveryRankIsSlowedAlikeHasNoCulprit) {
  // A busy host slows every rank in step 2: no rank is slower than its peers.
  const Judged j = judge(4, gpipe(4, 2, 6, [](int, int k) { return k == 2 ? 1.5 : 1.0; }));
  for (const StragglerRow& row : j.stragglers.ranks) {
    EXPECT_EQ(row.culpritSteps, 0) << row.rank;
    EXPECT_EQ(row.victimSteps, 0) << row.rank;
  }
}

TEST(Stragglers, OneStalledOpIsNoCulpritButAWholeSlowStepIs) {
  // Rank 1's first forward of step 2 stalls 5x (the host took its core); its other 3 ops ran
  // at speed: the median of its ops' pace is 1. In step 4 all its ops ran 1.5x: a culprit.
  const Stall stall = [](int r, int k, OpKind kind, int m) {
    return r == 1 && k == 2 && kind == OpKind::F && m == 0 ? 5.0 : 1.0;
  };
  const Judged j = judge(
      4, gpipe(
             4, 2, 6, [](int r, int k) { return r == 1 && k == 4 ? 1.5 : 1.0; }, true, stall));
  EXPECT_FALSE(j.stragglers.steps[2].ranks[1].culprit);
  EXPECT_TRUE(j.stragglers.steps[4].ranks[1].culprit);
  EXPECT_NEAR(j.stragglers.steps[4].ranks[1].slowness, 1.5, 1e-9);
  // Its 2 F + 2 B took 900 ns at 1.5x: 300 ns more than at its peers' pace.
  EXPECT_EQ(j.stragglers.steps[4].ranks[1].excessNs, 300);
  EXPECT_EQ(j.stragglers.ranks[1].culpritSteps, 1);
}

TEST(Stragglers, SlownessUnderTheMarginIsNoCulprit) {
  const Judged under = judge(4, gpipe(4, 2, 5, [](int r, int) { return r == 2 ? 1.05 : 1.0; }));
  EXPECT_EQ(under.stragglers.ranks[2].culpritSteps, 0);
  EXPECT_EQ(under.stragglers.ranks[0].victimSteps, 0) << "no culprit, no victim";
  const Judged over = judge(4, gpipe(4, 2, 5, [](int r, int) { return r == 2 ? 1.2 : 1.0; }));
  EXPECT_EQ(over.stragglers.ranks[2].culpritSteps, 5);
}

TEST(Stragglers, OpsWithoutStageArePooledPerRank) {
  // An imported run that named no stage: no dependencies to follow (so no victims), but the
  // slow rank still stands out against the run's median per kind.
  const Judged j = judge(4, gpipe(
                                4, 2, 6, [](int r, int) { return r == 3 ? 2.0 : 1.0; }, false));
  EXPECT_EQ(j.stragglers.ranks[3].culpritSteps, 6);
  EXPECT_EQ(j.stragglers.flaggedRanks(), std::vector<int>{3});
  for (int r : {0, 1, 2})
    EXPECT_EQ(j.stragglers.ranks[r].culpritSteps, 0) << r;
}

TEST(Stragglers, AStageWithMoreLayersIsNotSlowForTakingLonger) {
  // Stage 1 holds layers 1..2 and takes twice as long: per layer it is as fast as the others.
  TraceBatch batch = gpipe(3, 2, 4, [](int r, int) { return r == 1 ? 2.0 : 1.0; });
  RunHeader header = test::simpleHeader(3);
  header.stages = {{0, 0, 0, 0}, {1, 1, 1, 2}, {2, 2, 3, 3}};
  const RunTrace run = test::roundTrip(header, batch);
  const RunExplanation why = explainRun(run);
  const StepGraph graph(run);
  const StragglerTable t = findStragglers(graph, why.bubbles, {0, 1, 2, 3});
  EXPECT_EQ(t.ranks[1].culpritSteps, 0);
  EXPECT_TRUE(t.flaggedRanks().empty());
}

}  // namespace
}  // namespace ps::trace
