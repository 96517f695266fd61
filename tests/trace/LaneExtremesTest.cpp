// Lane queries, lane indexes and op search on ops at the ends of the int64 axis (issue 12 case
// 13): durations and gaps past INT64_MAX saturate, nothing overflows (UBSan halts on it in the
// dev build), and the answers stay right.

#include <gtest/gtest.h>

#include <climits>

#include "trace/analysis/LaneIndex.h"
#include "trace/analysis/LaneQuery.h"
#include "trace/analysis/OpSearch.h"
#include "trace/analysis/WideTime.h"

namespace ps::trace {
namespace {

constexpr std::int64_t kMin = INT64_MIN, kMax = INT64_MAX;

OpColumns extremeLane() {
  OpColumns lane;
  lane.push(kMin, kMin + 10, OpKind::F, 0, 0, 0, -1, -1, -1);
  lane.push(kMin, kMax, OpKind::B, 0, 1, 0, -1, -1, -1);  // the whole axis
  lane.push(-5, 5, OpKind::F, 0, 2, 0, -1, -1, -1);
  lane.push(kMax - 10, kMax, OpKind::W, 0, 3, 0, -1, -1, -1);
  return lane;
}

TEST(Saturating, ClampsInsteadOfWrapping) {
  EXPECT_EQ(satSub(kMax, kMin), kMax);
  EXPECT_EQ(satSub(kMin, 1), kMin);
  EXPECT_EQ(satAdd(kMax, 1), kMax);
  EXPECT_EQ(satAdd(kMin, -1), kMin);
  EXPECT_EQ(satAdd(kMax, kMin), -1);
  EXPECT_EQ(satAbs(kMin), kMax);
  EXPECT_EQ(satFromDouble(1e300), kMax);
  EXPECT_EQ(satFromDouble(-1e300), kMin);
  EXPECT_EQ(satFromDouble(0.0 / 0.0), 0);
  EXPECT_DOUBLE_EQ(differenceOf(kMax, kMin), 0x1p64);
  EXPECT_DOUBLE_EQ(differenceOf(kMin + 7, kMin), 7.0);
}

TEST(LaneExtremes, IndexAndQueryOverTheWholeAxis) {
  const OpColumns lane = extremeLane();
  EXPECT_EQ(durationOf(lane, 1), kMax);
  const LaneIndex index(lane);
  // Wide view: the first op starts a fold that the whole-axis op (a longer one) ends.
  const auto wide = queryLane(lane, index, kMin, kMax, 1000.0, 3.0);
  ASSERT_FALSE(wide.empty());
  EXPECT_EQ(wide.front().start, kMin);
  std::size_t ops = 0;
  for (const auto& item : wide) {
    EXPECT_LE(item.start, item.end);
    ops += item.count;
  }
  EXPECT_EQ(ops, lane.size());
  // Deep zoom at either end: the ops there come back one by one.
  const auto left = queryLane(lane, index, kMin, kMin + 100, 1000.0, 3.0);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].count, 1u);
  const auto right = queryLane(lane, index, kMax - 100, kMax, 1000.0, 3.0);
  ASSERT_EQ(right.size(), 2u);  // the whole-axis op, still running, and the last one
  EXPECT_EQ(right[1].start, kMax - 10);
}

TEST(LaneExtremes, MemoryColumnsOverTheWholeAxis) {
  MemorySeries series;
  series.t = {kMin, 0, kMax};
  series.bytes = {1, 5, 2};
  const auto cols = queryMemory(series, kMin, kMax, 100);
  ASSERT_EQ(cols.size(), 100u);
  EXPECT_TRUE(cols.front().valid);
  EXPECT_EQ(cols.front().minBytes, 1);
  EXPECT_EQ(cols[50].maxBytes, 5);
  const auto end = queryMemory(series, kMax - 100, kMax, 10);
  EXPECT_EQ(end.back().maxBytes, 5);  // the sample at INT64_MAX lies at the range's end
}

TEST(LaneExtremes, SearchOrdersOpsAcrossTheWholeAxis) {
  RunTrace run;
  run.ranks.resize(2);
  run.ranks[0].lane(Lane::Compute) = extremeLane();
  run.ranks[1].lane(Lane::Compute).push(kMax, kMax, OpKind::F, 1, 0, 0, -1, -1, -1);
  auto found = searchOps(run, "");
  ASSERT_TRUE(found) << found.error();
  ASSERT_EQ(found->size(), 5u);
  EXPECT_EQ(run.ranks[found->back().rank].lane(found->back().lane).start[found->back().index],
            kMax);
  EXPECT_EQ(run.ranks[found->front().rank].lane(found->front().lane).start[found->front().index],
            kMin);
}

}  // namespace
}  // namespace ps::trace
