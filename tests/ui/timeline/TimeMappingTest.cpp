// Time <-> pixel helpers: round trips, zoom and pan limits, ticks and labels at the extremes.

#include <gtest/gtest.h>

#include <algorithm>

#include "ui/timeline/TimeMapping.h"

namespace ps::ui {
namespace {

class RoundTrip : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, double>> {
};

TEST_P(RoundTrip, PixelOfTimeAndBack) {
  const auto [start, length, width] = GetParam();
  const TimeRange r{start, start + length};
  for (double x : {0.0, width / 3, width / 2, width - 1}) {
    const std::int64_t t = pxToTime(r, width, x);
    // Within a pixel, or within one nanosecond when a nanosecond is wider than a pixel.
    const double tolerance = std::max(1.0, width / static_cast<double>(length));
    EXPECT_NEAR(timeToPx(r, width, t), x, tolerance) << x;
  }
  EXPECT_DOUBLE_EQ(timeToPx(r, width, r.start), 0.0);
  EXPECT_NEAR(timeToPx(r, width, r.end), width, 1e-6 * width);
}

INSTANTIATE_TEST_SUITE_P(Extremes, RoundTrip,
                         ::testing::Values(std::tuple{0LL, 1LL, 1000.0},
                                           std::tuple{0LL, 1000LL, 1.0},
                                           std::tuple{-5000LL, 10000LL, 800.0},
                                           std::tuple{1LL << 40, 1LL << 50, 3840.0},
                                           std::tuple{0LL, INT64_MAX / 4, 1920.0}));

TEST(TimeMapping, ZoomKeepsTheAnchorAndRespectsLimits) {
  const TimeRange limit{0, 1'000'000};
  const TimeRange r{0, 1'000'000};
  const TimeRange in = zoomAround(r, 1000, 250, 0.5, 100, limit);
  EXPECT_EQ(in.length(), 500'000);
  EXPECT_NEAR(timeToPx(in, 1000, 250'000), 250, 1);
  EXPECT_EQ(zoomAround(r, 1000, 500, 1e-9, 100, limit).length(), 100);       // minimum length
  EXPECT_EQ(zoomAround(in, 1000, 500, 10, 100, limit).length(), 1'000'000);  // not past the limit
  const TimeRange panned = panByPx(in, 1000, 5000, limit);
  EXPECT_EQ(panned.end, limit.end);
  EXPECT_EQ(panByPx(in, 1000, -5000, limit).start, limit.start);
}

TEST(TimeMapping, TicksAreOneTwoFiveAndLabelsPickTheUnit) {
  EXPECT_EQ(tickStep({0, 1'000'000}, 1000, 90), 100'000);
  EXPECT_EQ(tickStep({0, 100}, 1000, 90), 10);
  EXPECT_EQ(tickStep({0, 5'000'000'000}, 1000, 90), 500'000'000);
  EXPECT_EQ(tickLabel(500'000, 100'000), "500 µs");
  EXPECT_EQ(tickLabel(1'500'000, 500'000), "1.5 ms");
  EXPECT_EQ(tickLabel(2'000'000'000, 1'000'000'000), "2 s");
  EXPECT_EQ(tickLabel(40, 10), "40 ns");
}

struct LabelCase {
  std::int64_t t, step, magnitude;
  const char* label;
};

class TickLabels : public ::testing::TestWithParam<LabelCase> {};

// The unit follows the axis' reach, the decimals the step: deep zooms far from 0 stay in the
// range's unit ("1.64995 ms"), never a raw nanosecond count.
TEST_P(TickLabels, UnitOfTheRangeDecimalsOfTheStep) {
  const auto c = GetParam();
  EXPECT_EQ(tickLabel(c.t, c.step, c.magnitude), c.label);
}

INSTANTIATE_TEST_SUITE_P(
    Extremes, TickLabels,
    ::testing::Values(LabelCase{1'649'950, 50, 1'650'000, "1.64995 ms"},
                      LabelCase{1'649'950, 50, 0, "1649950 ns"},
                      LabelCase{3'000'000'001, 1, 3'000'000'100, "3.000000001 s"},
                      LabelCase{-500'000, 100'000, 2'000'000, "-0.5 ms"},
                      LabelCase{40, 10, 100, "40 ns"},
                      LabelCase{7'000'000'000'000, 1'000'000'000, 7'100'000'000'000, "7000 s"}));

}  // namespace
}  // namespace ps::ui
