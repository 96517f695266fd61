// The background cut around the boxes: every uncovered pixel painted exactly once, with the right
// ground, in as few pieces as the shading and grid allow; checked pixel by pixel.

#include <gtest/gtest.h>

#include <random>

#include "ui/timeline/StripComposer.h"

namespace ps::ui {
namespace {

constexpr int kNothing = -1;

// What each pixel of [left, right) should get, by brute force (kNothing under a box).
std::vector<int> expected(int left, int right, const std::vector<Span>& covered,
                          const std::vector<Span>& shaded, const std::vector<int>& grid) {
  std::vector<int> px(right - left);
  for (int x = left; x < right; ++x) {
    bool under = false, shade = false, line = false;
    for (const auto& c : covered)
      under |= c.left <= x && x < c.right;
    for (const auto& s : shaded)
      shade |= s.left <= x && x < s.right;
    for (int g : grid)
      line |= g == x;
    px[x - left] = under  ? kNothing
                   : line ? int(shade ? Ground::GridOnShaded : Ground::GridOnPlain)
                          : int(shade ? Ground::Shaded : Ground::Plain);
  }
  return px;
}

void expectExact(int left, int right, const std::vector<Span>& covered,
                 const std::vector<Span>& shaded, const std::vector<int>& grid) {
  std::vector<GroundPiece> pieces;
  composeStrip(left, right, covered, shaded, grid, pieces);
  std::vector<int> painted(right - left, kNothing), times(right - left, 0);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const auto& p = pieces[k];
    ASSERT_LT(p.span.left, p.span.right) << "piece " << k;
    ASSERT_GE(p.span.left, left);
    ASSERT_LE(p.span.right, right);
    if (k > 0) {
      EXPECT_LE(pieces[k - 1].span.right, p.span.left) << "pieces sorted, disjoint";
      const bool line = p.ground == Ground::GridOnPlain || p.ground == Ground::GridOnShaded;
      if (pieces[k - 1].span.right == p.span.left && !line) {
        EXPECT_NE(pieces[k - 1].ground, p.ground) << "touching pieces of one ground at " << k;
      }
    }
    if (p.ground == Ground::GridOnPlain || p.ground == Ground::GridOnShaded) {
      EXPECT_EQ(p.span.right - p.span.left, 1);
    }
    for (int x = p.span.left; x < p.span.right; ++x) {
      painted[x - left] = int(p.ground);
      ++times[x - left];
    }
  }
  const auto want = expected(left, right, covered, shaded, grid);
  for (int x = left; x < right; ++x) {
    EXPECT_EQ(painted[x - left], want[x - left]) << "pixel " << x;
    EXPECT_LE(times[x - left], 1) << "pixel " << x << " painted twice";
  }
}

TEST(StripComposer, NothingCoveredIsOnePlainPiece) {
  std::vector<GroundPiece> pieces;
  composeStrip(0, 100, {}, {}, {}, pieces);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0], (GroundPiece{{0, 100}, Ground::Plain}));
}

TEST(StripComposer, FullyCoveredLeavesNothing) {
  std::vector<GroundPiece> pieces;
  composeStrip(10, 100, {{0, 50}, {20, 40}, {50, 200}}, {{10, 100}}, {30, 60}, pieces);
  EXPECT_TRUE(pieces.empty());
}

TEST(StripComposer, GridAndShadeEdgesCutTheGap) {
  // Shade [20, 40), grid at 10, 20 and 39, a box over [50, 60).
  std::vector<GroundPiece> pieces;
  composeStrip(0, 70, {{50, 60}}, {{20, 40}}, {10, 20, 39}, pieces);
  const std::vector<GroundPiece> want = {
      {{0, 10}, Ground::Plain},   {{10, 11}, Ground::GridOnPlain},
      {{11, 20}, Ground::Plain},  {{20, 21}, Ground::GridOnShaded},
      {{21, 39}, Ground::Shaded}, {{39, 40}, Ground::GridOnShaded},
      {{40, 50}, Ground::Plain},  {{60, 70}, Ground::Plain}};
  EXPECT_EQ(pieces, want);
}

TEST(StripComposer, BoxesReachingOutsideTheStripAreClipped) {
  expectExact(10, 50, {{-5, 12}, {48, 80}}, {{0, 100}}, {5, 11, 12, 49, 50});
}

class RandomStrips : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomStrips, EveryUncoveredPixelOnceWithItsGround) {
  std::mt19937 rng(GetParam());
  const int left = static_cast<int>(rng() % 20), right = left + 1 + static_cast<int>(rng() % 300);
  std::vector<Span> covered, shaded;
  std::vector<int> grid;
  for (int k = static_cast<int>(rng() % 30); k > 0; --k) {
    const int a = static_cast<int>(rng() % 340) - 10;
    covered.push_back({a, a + static_cast<int>(rng() % 25)});  // some empty, some overlapping
  }
  std::sort(covered.begin(), covered.end(),
            [](const Span& a, const Span& b) { return a.left < b.left; });
  for (int k = static_cast<int>(rng() % 6); k > 0; --k) {
    const int a = static_cast<int>(rng() % 340) - 10;
    shaded.push_back({a, a + static_cast<int>(rng() % 80)});
  }
  shaded = mergeSpans(shaded);
  for (int x = static_cast<int>(rng() % 15); x < 330; x += 1 + static_cast<int>(rng() % 40))
    grid.push_back(x);
  expectExact(left, right, covered, shaded, grid);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomStrips, ::testing::Range(1u, 201u));

TEST(MergeSpans, UnionSortedAndDisjoint) {
  EXPECT_EQ(mergeSpans({{30, 40}, {0, 10}, {10, 12}, {5, 7}, {20, 20}, {35, 50}}),
            (std::vector<Span>{{0, 12}, {30, 50}}));
  EXPECT_TRUE(mergeSpans({{5, 5}, {7, 3}}).empty());
}

}  // namespace
}  // namespace ps::ui
