// The per-pixel lane and memory queries: exact for wide ops, bounded for dense ones.

#include <gtest/gtest.h>

#include "trace/analysis/LaneQuery.h"

namespace ps::trace {
namespace {

OpColumns laneOfIntervals(std::vector<std::pair<std::int64_t, std::int64_t>> ops) {
  OpColumns lane;
  for (auto [s, e] : ops)
    lane.push(s, e, OpKind::F, 0, 0, 0, kNoValue, kNoValue, kNoValue);
  return lane;
}

std::size_t covered(const std::vector<LaneItem>& items) {
  std::size_t n = 0;
  for (const auto& it : items)
    n += it.count;
  return n;
}

TEST(LaneQuery, WideOpsComeBackOneByOne) {
  const auto lane = laneOfIntervals({{0, 100}, {100, 200}, {300, 400}});
  const auto items = queryLane(lane, 0, 400, 400.0);  // 1 ns per px
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[2].start, 300);
  EXPECT_EQ(items[2].count, 1u);
}

TEST(LaneQuery, OpOverlappingTheLeftEdgeIsIncluded) {
  const auto lane = laneOfIntervals({{0, 100}, {150, 160}});
  const auto items = queryLane(lane, 50, 200, 150.0);
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items[0].start, 0);
  EXPECT_EQ(items[0].first, 0u);
}

TEST(LaneQuery, NarrowNeighboursFoldWithTheirCount) {
  // 10 ops of 1 ns back to back in a 1000 ns view 100 px wide (10 ns/px): one fold.
  std::vector<std::pair<std::int64_t, std::int64_t>> ops;
  for (int k = 0; k < 10; ++k)
    ops.push_back({k, k + 1});
  ops.push_back({500, 900});
  const auto items = queryLane(laneOfIntervals(ops), 0, 1000, 100.0);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].count, 10u);
  EXPECT_EQ(items[0].start, 0);
  EXPECT_EQ(items[0].end, 10);
  EXPECT_EQ(items[1].count, 1u);
}

class DenseLane : public ::testing::TestWithParam<int> {};

TEST_P(DenseLane, AtMostAboutOneItemPerPixelAndEveryOpCovered) {
  const int width = GetParam();
  std::vector<std::pair<std::int64_t, std::int64_t>> ops;
  for (int k = 0; k < 200000; ++k)
    ops.push_back({10LL * k, 10LL * k + 7});
  const auto lane = laneOfIntervals(ops);
  const auto items = queryLane(lane, 0, 2'000'000, width);
  EXPECT_LE(items.size(), static_cast<std::size_t>(width) + 2);
  EXPECT_EQ(covered(items), ops.size());
  for (std::size_t k = 1; k < items.size(); ++k)
    EXPECT_GE(items[k].start, items[k - 1].start);
}

INSTANTIATE_TEST_SUITE_P(Widths, DenseLane, ::testing::Values(1, 7, 100, 1920, 8000));

TEST(LaneQuery, ZoomExtremes) {
  const auto lane = laneOfIntervals({{0, 1}, {INT64_MAX / 4, INT64_MAX / 4 + 5}});
  EXPECT_EQ(queryLane(lane, 0, 1, 1000.0).size(), 1u);  // 1 ns over 1000 px
  const auto all = queryLane(lane, 0, INT64_MAX / 2, 1000.0);
  EXPECT_EQ(covered(all), 2u);
  EXPECT_TRUE(queryLane(lane, 10, 10, 100.0).empty());  // empty range
  EXPECT_TRUE(queryLane(lane, 0, 100, 0.0).empty());    // no pixels
  EXPECT_TRUE(queryLane(OpColumns{}, 0, 100, 10.0).empty());
}

TEST(MemoryQuery, MinAndMaxPerPixelColumn) {
  MemorySeries m;
  m.t = {0, 5, 6, 7, 20};
  m.bytes = {10, 50, 5, 30, 40};
  const auto cols = queryMemory(m, 0, 30, 3);  // 10 ns per column
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[0].minBytes, 5);
  EXPECT_EQ(cols[0].maxBytes, 50);
  EXPECT_EQ(cols[1].minBytes, 30);  // nothing changes in [10,20): the value in force
  EXPECT_EQ(cols[1].maxBytes, 30);
  EXPECT_EQ(cols[2].minBytes, 30);
  EXPECT_EQ(cols[2].maxBytes, 40);
  const auto before = queryMemory(m, -20, -10, 2);
  EXPECT_FALSE(before[0].valid);
}

}  // namespace
}  // namespace ps::trace
