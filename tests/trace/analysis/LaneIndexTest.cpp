// The lane index against a brute-force fold (same contract, op by one), on random lanes with
// gaps, wide ops, overlaps and nesting, and on the edge cases one by one.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "trace/analysis/LaneIndex.h"
#include "trace/analysis/LaneQuery.h"

namespace ps::trace {
namespace {

struct Op {
  std::int64_t start, end;
  OpKind kind = OpKind::F;
};

OpColumns laneOf(const std::vector<Op>& ops) {
  OpColumns lane;
  for (const auto& op : ops)
    lane.push(op.start, op.end, op.kind, 0, 0, 0, kNoValue, kNoValue, kNoValue);
  return lane;
}

// The LaneQuery.h contract, one op at a time: no index, no skipping.
std::vector<LaneItem> bruteForce(const OpColumns& lane, std::int64_t t0, std::int64_t t1,
                                 double widthPx, double minPx) {
  std::vector<LaneItem> out;
  if (lane.empty() || t1 <= t0 || widthPx <= 0) return out;
  const double minNsF =
      std::ceil(minPx * (static_cast<double>(t1) - static_cast<double>(t0)) / widthPx);
  const std::int64_t minNs =
      minNsF >= 0x1p63 ? INT64_MAX : std::max<std::int64_t>(1, static_cast<std::int64_t>(minNsF));
  std::int64_t latest = LaneIndex::kNone;
  std::size_t i = 0;
  while (i < lane.size() && lane.start[i] < t1) {
    const std::int64_t duration = lane.end[i] - lane.start[i];
    LaneItem item{lane.start[i], lane.end[i], i, 1, lane.kind[i]};
    latest = std::max(latest, lane.end[i]);
    ++i;
    if (item.end <= t0) continue;
    if (duration < minNs) {
      std::int64_t widest = duration;
      // Written out here rather than with breakKey, so the reference shares no code.
      while (i < lane.size() && lane.start[i] < t1 && lane.end[i] - lane.start[i] < minNs &&
             lane.start[i] - latest < minNs) {
        if (lane.end[i] - lane.start[i] > widest) {
          widest = lane.end[i] - lane.start[i];
          item.kind = lane.kind[i];
        }
        item.end = std::max(item.end, lane.end[i]);
        latest = std::max(latest, lane.end[i]);
        ++item.count;
        ++i;
      }
    }
    out.push_back(item);
  }
  return out;
}

void expectSame(const std::vector<LaneItem>& got, const std::vector<LaneItem>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].start, want[k].start) << "item " << k;
    EXPECT_EQ(got[k].end, want[k].end) << "item " << k;
    EXPECT_EQ(got[k].first, want[k].first) << "item " << k;
    EXPECT_EQ(got[k].count, want[k].count) << "item " << k;
    EXPECT_EQ(got[k].kind, want[k].kind) << "item " << k;
  }
}

// Dense runs of tiny ops, some wide ops, gaps of every size, overlaps and nested ops.
std::vector<Op> randomOps(unsigned seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  std::int64_t t = 0;
  const OpKind kinds[] = {OpKind::F, OpKind::B, OpKind::W, OpKind::I};
  while (ops.size() < n) {
    const int mode = static_cast<int>(rng() % 100);
    const std::int64_t dur = mode < 80 ? 1 + rng() % 9 : mode < 95 ? 50 + rng() % 5000 : 0;
    const std::int64_t gap = rng() % 100 < 90 ? rng() % 4 : rng() % 20000;
    const std::int64_t start = mode < 3 && t > 50 ? t - 1 - rng() % 40 : t + gap;  // overlap
    ops.push_back({start, start + dur, kinds[rng() % 4]});
    if (rng() % 200 == 0)  // a nested op starting at the same time
      ops.push_back({start, start + dur / 2, kinds[rng() % 4]});
    t = std::max(t, start + dur);
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const Op& a, const Op& b) { return a.start < b.start; });
  return ops;
}

class AgainstBruteForce
    : public ::testing::TestWithParam<std::tuple<unsigned, std::size_t, double, double>> {};

TEST_P(AgainstBruteForce, SameItemsForEveryWindow) {
  const auto [seed, n, widthPx, minPx] = GetParam();
  const auto lane = laneOf(randomOps(seed, n));
  const LaneIndex index(lane);
  const std::int64_t last =
      lane.end.empty() ? 1 : *std::max_element(lane.end.begin(), lane.end.end());
  std::mt19937_64 rng(seed * 7 + 1);
  for (int window = 0; window < 40; ++window) {
    // Whole lane, zooms down to a few ns, windows hanging off either end.
    const std::int64_t length = std::max<std::int64_t>(1, last >> (rng() % 24));
    const std::int64_t t0 = static_cast<std::int64_t>(rng() % (last + 2)) - length / 3;
    const std::int64_t t1 = window == 0 ? last + 10 : t0 + length;
    const std::int64_t from = window == 0 ? -10 : t0;
    SCOPED_TRACE(testing::Message() << "window [" << from << ", " << t1 << ")");
    expectSame(queryLane(lane, index, from, t1, widthPx, minPx),
               bruteForce(lane, from, t1, widthPx, minPx));
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, AgainstBruteForce,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u),
                                            ::testing::Values(1, 63, 64, 65, 5000, 300000),
                                            ::testing::Values(1.0, 1920.0),
                                            ::testing::Values(2.0, 3.0)));

TEST(LaneIndex, EmptyLane) {
  const OpColumns lane;
  const LaneIndex index(lane);
  EXPECT_EQ(index.ops(), 0u);
  EXPECT_EQ(index.firstEndingAfter(lane, 0).index, 0u);
  EXPECT_TRUE(queryLane(lane, index, 0, 100, 100.0).empty());
}

struct OneOpCase {
  std::int64_t t0, t1;
  std::size_t items;
};

class OneOp : public ::testing::TestWithParam<OneOpCase> {};

TEST_P(OneOp, ShownWhenItOverlapsTheRange) {
  const auto lane = laneOf({{100, 200}});
  const auto c = GetParam();
  const auto items = queryLane(lane, LaneIndex(lane), c.t0, c.t1, 50.0);
  ASSERT_EQ(items.size(), c.items);
  if (c.items) {
    EXPECT_EQ(items[0].start, 100);
    EXPECT_EQ(items[0].end, 200);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranges, OneOp,
                         ::testing::Values(OneOpCase{0, 100, 0},    // ends where the op starts
                                           OneOpCase{200, 300, 0},  // starts where it ends
                                           OneOpCase{199, 300, 1},  // its last ns
                                           OneOpCase{0, 101, 1},    // its first ns
                                           OneOpCase{120, 130, 1},  // wider than the range
                                           OneOpCase{-1000, 5000, 1}));

TEST(LaneIndex, OpsWiderThanTheRangeComeBackWhole) {
  const auto lane = laneOf({{-1000, 1000}, {5, 6}, {7, 8}, {2000, 3000}});
  const auto items = queryLane(lane, LaneIndex(lane), 0, 10, 1000.0);  // 0.01 ns per px
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].start, -1000);
  EXPECT_EQ(items[0].end, 1000);
  EXPECT_EQ(items[1].start, 5);
}

class ZoomExtremes : public ::testing::TestWithParam<std::tuple<std::int64_t, double>> {};

TEST_P(ZoomExtremes, EveryOpCoveredOnceInOrder) {
  const auto [length, widthPx] = GetParam();
  std::vector<Op> ops;
  for (std::int64_t k = 0; k < 100000; ++k)
    ops.push_back({k * 10, k * 10 + 1 + k % 7});
  ops.push_back({INT64_MAX / 4, INT64_MAX / 4 + 5});
  const auto lane = laneOf(ops);
  const LaneIndex index(lane);
  const auto items = queryLane(lane, index, 0, length, widthPx);
  expectSame(items, bruteForce(lane, 0, length, widthPx, 3.0));
  std::size_t next = 0;
  for (const auto& item : items) {
    EXPECT_EQ(item.first, next);
    next += item.count;
  }
  EXPECT_EQ(next, std::min<std::size_t>(lane.size(), lane.lowerBoundStart(length)));
}

INSTANTIATE_TEST_SUITE_P(Zooms, ZoomExtremes,
                         ::testing::Combine(::testing::Values(1, 7, 1000, 1'000'000, INT64_MAX / 2),
                                            ::testing::Values(1.0, 1920.0, 100000.0)));

struct BoundaryCase {
  std::int64_t duration, gap;
  std::size_t items;
};

class PixelBoundaries : public ::testing::TestWithParam<BoundaryCase> {};

// 10 ns per px and minPx 3: an op of exactly 30 ns is wide, a gap of exactly 30 ns breaks a fold.
TEST_P(PixelBoundaries, ThresholdIsInclusive) {
  const auto c = GetParam();
  const auto lane = laneOf({{0, 10}, {10 + c.gap, 10 + c.gap + c.duration}, {500, 505}});
  const auto items = queryLane(lane, LaneIndex(lane), 0, 1000, 100.0, 3.0);
  EXPECT_EQ(items.size(), c.items);
  expectSame(items, bruteForce(lane, 0, 1000, 100.0, 3.0));
}

INSTANTIATE_TEST_SUITE_P(Thresholds, PixelBoundaries,
                         ::testing::Values(BoundaryCase{29, 0, 2},  // folds with the first
                                           BoundaryCase{30, 0, 3},  // wide: alone
                                           BoundaryCase{5, 29, 2},  // gap below: folds
                                           BoundaryCase{5, 30, 3},  // gap at: a new fold
                                           BoundaryCase{30, 30, 3}));

class BreakInsideABlock : public ::testing::TestWithParam<std::tuple<int, bool>> {};

// 20000 ops 5 ns long every 10 ns, at 10 ns per px (a fold breaks at 30 ns): one op at `at`
// exactly 30 ns long, or exactly 30 ns after its neighbour, must stop the fold however deep
// inside the index's blocks it sits.
TEST_P(BreakInsideABlock, StopsTheFoldExactlyThere) {
  const auto [at, byGap] = GetParam();
  std::vector<Op> ops;
  for (std::int64_t k = 0; k < 20000; ++k) {
    const std::int64_t shift = byGap && k >= at ? 25 : 0;
    ops.push_back({k * 10 + shift, k * 10 + shift + (!byGap && k == at ? 30 : 5)});
  }
  const auto lane = laneOf(ops);
  const auto items = queryLane(lane, LaneIndex(lane), 0, 300000, 30000.0);
  expectSame(items, bruteForce(lane, 0, 300000, 30000.0, 3.0));
  ASSERT_GE(items.size(), 2u);
  EXPECT_EQ(items[1].first, static_cast<std::size_t>(at));
}

INSTANTIATE_TEST_SUITE_P(Positions, BreakInsideABlock,
                         ::testing::Combine(::testing::Values(1, 63, 64, 1000, 4095, 4096, 19999),
                                            ::testing::Bool()));

TEST(LaneIndex, FoldTakesTheFirstWidestKindEvenInsideASkippedBlock) {
  std::vector<Op> ops;
  for (std::int64_t k = 0; k < 20000; ++k)
    ops.push_back({k * 10, k * 10 + 5, OpKind::F});
  ops[9000].end += 3;  // first widest, deep inside skipped blocks
  ops[9000].kind = OpKind::W;
  ops[15000].end += 3;
  ops[15000].kind = OpKind::B;
  const auto lane = laneOf(ops);
  const auto items = queryLane(lane, LaneIndex(lane), 0, 200000, 100.0);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].count, 20000u);
  EXPECT_EQ(items[0].kind, OpKind::W);
}

TEST(LaneIndex, NestedOpsDoNotOpenGaps) {
  // A long op covers short ones: the idle time between the short ones is not a gap.
  const auto lane = laneOf({{0, 1}, {0, 1000}, {100, 101}, {900, 901}, {2000, 2001}});
  const LaneIndex index(lane);
  EXPECT_EQ(index.firstEndingAfter(lane, 500).index, 1u);
  const auto near = queryLane(lane, index, 0, 3000, 300.0);  // 10 ns per px
  expectSame(near, bruteForce(lane, 0, 3000, 300.0, 3.0));
  ASSERT_EQ(near.size(), 4u);  // [0,1) | the long op | both short ones inside it | [2000,2001)
  EXPECT_EQ(near[2].count, 2u);
  const auto items = queryLane(lane, index, 0, 100000, 100.0);  // 1000 ns per px: all narrow
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].end, 2001);
}

TEST(LaneIndex, SmallNextToTheLane) {
  const auto lane = laneOf(randomOps(9, 1'000'000));
  EXPECT_LT(static_cast<double>(LaneIndex(lane).bytes()) / static_cast<double>(lane.size()), 0.55);
}

TEST(LaneIndex, AStaleIndexGivesNothingRatherThanReadingPastTheLane) {
  const auto lane = laneOf({{0, 10}, {20, 30}});
  const LaneIndex stale(laneOf({{0, 10}}));
  EXPECT_TRUE(queryLane(lane, stale, 0, 100, 10.0).empty());
}

}  // namespace
}  // namespace ps::trace
