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

constexpr std::int64_t kAxisMin = INT64_MIN, kAxisMax = INT64_MAX;

OpColumns extremeLane() {
  OpColumns lane;
  lane.push(kAxisMin, kAxisMin + 10, OpKind::F, 0, 0, 0, -1, -1, -1);
  lane.push(kAxisMin, kAxisMax, OpKind::B, 0, 1, 0, -1, -1, -1);  // the whole axis
  lane.push(-5, 5, OpKind::F, 0, 2, 0, -1, -1, -1);
  lane.push(kAxisMax - 10, kAxisMax, OpKind::W, 0, 3, 0, -1, -1, -1);
  return lane;
}

TEST(Saturating, ClampsInsteadOfWrapping) {
  EXPECT_EQ(satSub(kAxisMax, kAxisMin), kAxisMax);
  EXPECT_EQ(satSub(kAxisMin, 1), kAxisMin);
  EXPECT_EQ(satAdd(kAxisMax, 1), kAxisMax);
  EXPECT_EQ(satAdd(kAxisMin, -1), kAxisMin);
  EXPECT_EQ(satAdd(kAxisMax, kAxisMin), -1);
  EXPECT_EQ(satAbs(kAxisMin), kAxisMax);
  EXPECT_EQ(satFromDouble(1e300), kAxisMax);
  EXPECT_EQ(satFromDouble(-1e300), kAxisMin);
  EXPECT_EQ(satFromDouble(0.0 / 0.0), 0);
  EXPECT_DOUBLE_EQ(differenceOf(kAxisMax, kAxisMin), 0x1p64);
  EXPECT_DOUBLE_EQ(differenceOf(kAxisMin + 7, kAxisMin), 7.0);
}

TEST(LaneExtremes, IndexAndQueryOverTheWholeAxis) {
  const OpColumns lane = extremeLane();
  EXPECT_EQ(durationOf(lane, 1), kAxisMax);
  const LaneIndex index(lane);
  // Wide view: the first op starts a fold that the whole-axis op (a longer one) ends.
  const auto wide = queryLane(lane, index, kAxisMin, kAxisMax, 1000.0, 3.0);
  ASSERT_FALSE(wide.empty());
  EXPECT_EQ(wide.front().start, kAxisMin);
  std::size_t ops = 0;
  for (const auto& item : wide) {
    EXPECT_LE(item.start, item.end);
    ops += item.count;
  }
  EXPECT_EQ(ops, lane.size());
  // Deep zoom at either end: the ops there come back one by one.
  const auto left = queryLane(lane, index, kAxisMin, kAxisMin + 100, 1000.0, 3.0);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].count, 1u);
  const auto right = queryLane(lane, index, kAxisMax - 100, kAxisMax, 1000.0, 3.0);
  ASSERT_EQ(right.size(), 2u);  // the whole-axis op, still running, and the last one
  EXPECT_EQ(right[1].start, kAxisMax - 10);
}

TEST(LaneExtremes, MemoryColumnsOverTheWholeAxis) {
  MemorySeries series;
  series.t = {kAxisMin, 0, kAxisMax};
  series.bytes = {1, 5, 2};
  const auto cols = queryMemory(series, kAxisMin, kAxisMax, 100);
  ASSERT_EQ(cols.size(), 100u);
  EXPECT_TRUE(cols.front().valid);
  EXPECT_EQ(cols.front().minBytes, 1);
  EXPECT_EQ(cols[50].maxBytes, 5);
  const auto end = queryMemory(series, kAxisMax - 100, kAxisMax, 10);
  EXPECT_EQ(end.back().maxBytes, 5);  // the sample at INT64_MAX lies at the range's end
}

TEST(LaneExtremes, SearchOrdersOpsAcrossTheWholeAxis) {
  RunTrace run;
  run.ranks.resize(2);
  run.ranks[0].lane(Lane::Compute) = extremeLane();
  run.ranks[1].lane(Lane::Compute).push(kAxisMax, kAxisMax, OpKind::F, 1, 0, 0, -1, -1, -1);
  auto found = searchOps(run, "");
  ASSERT_TRUE(found) << found.error();
  ASSERT_EQ(found->size(), 5u);
  EXPECT_EQ(run.ranks[found->back().rank].lane(found->back().lane).start[found->back().index],
            kAxisMax);
  EXPECT_EQ(run.ranks[found->front().rank].lane(found->front().lane).start[found->front().index],
            kAxisMin);
}

}  // namespace
}  // namespace ps::trace
