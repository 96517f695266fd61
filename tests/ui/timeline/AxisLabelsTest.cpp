// The time axis's labels keep apart (issue 34 item 20, "axis end labels crowd"): at any zoom and
// offset, and at the axis's right end where the last label turns to the left of its tick, two
// labels never come closer than a clear gap. Measured on the pixels of the axis strip.
// PIPESCOPE_UI_SHOTS=DIR saves each axis.

#include <gtest/gtest.h>

#include <QImage>

#include <cstdlib>
#include <vector>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// Pixel columns of the axis strip's text (above the tick marks), grouped into labels: columns
// less than `join` px apart are one label (the space between "1.5" and "ms").
std::vector<std::pair<int, int>> axisLabelSpans(const QImage& image, int join) {
  const QColor ground = image.pixelColor(image.width() - 2, 3);
  std::vector<int> inked;
  for (int x = TimelineView::kGutter; x < image.width(); ++x)
    for (int y = 1; y < TimelineView::kAxis - 7; ++y) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.lightness() - ground.lightness()) > 60) {
        inked.push_back(x);
        break;
      }
    }
  std::vector<std::pair<int, int>> spans;
  for (int x : inked)
    if (!spans.empty() && x - spans.back().second < join)
      spans.back().second = x;
    else
      spans.push_back({x, x});
  return spans;
}

class AxisLabelGaps : public ::testing::TestWithParam<std::tuple<int, std::int64_t, std::int64_t>> {
};

TEST_P(AxisLabelGaps, LabelsNeverCrowd) {
  const auto [width, start, length] = GetParam();
  testruns::usePalette(false);
  TimelineView view;
  view.resize(width, 160);
  auto run = testruns::pipeline(4, 4);
  // A long run: deep zooms far from its start need many digits ("1.6499501 s").
  run->ranks[0]
      .lane(trace::Lane::Compute)
      .push(2'000'000'000, 2'000'001'000, trace::OpKind::F, 0, 9, 0, -1, -1, -1);
  view.setRun(run);
  view.setVisibleRange(rangeFrom(start, length));
  const QImage image = testruns::renderView(view, Qt::white).convertToFormat(QImage::Format_RGB32);
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    image.copy(0, 0, width, TimelineView::kAxis)
        .save(QString("%1/axis-%2-%3-%4.png").arg(dir).arg(width).arg(start).arg(length));
  const auto spans = axisLabelSpans(image, 10);
  ASSERT_GE(spans.size(), 2u);
  for (std::size_t i = 1; i < spans.size(); ++i)
    EXPECT_GE(spans[i].first - spans[i - 1].second, 20)
        << "labels " << i - 1 << " and " << i << " at x " << spans[i - 1].second << " and "
        << spans[i].first;
  EXPECT_LE(spans.back().second, width - 3) << "the last label stays in the view";
}

INSTANTIATE_TEST_SUITE_P(
    ZoomsAndWidths, AxisLabelGaps,
    ::testing::Values(std::tuple{900, std::int64_t{0}, std::int64_t{12'000}},
                      std::tuple{1000, std::int64_t{0}, std::int64_t{12'000}},
                      std::tuple{1100, std::int64_t{1'649'950'000}, std::int64_t{1'000}},
                      std::tuple{1230, std::int64_t{1'649'950'000}, std::int64_t{1'300}},
                      std::tuple{977, std::int64_t{1'234'567'000}, std::int64_t{7'000}},
                      std::tuple{1333, std::int64_t{999'999'000}, std::int64_t{2'500}},
                      std::tuple{860, std::int64_t{1'000'000}, std::int64_t{3'300'000}}));

// Every width from 700 to 1400 px over the same range: somewhere the last tick sits close enough
// to the right edge that its label turns left, towards the label before it.
TEST(AxisLabels, TheLastLabelTurnedLeftKeepsClearOfTheOneBefore) {
  testruns::usePalette(false);
  TimelineView view;
  auto run = testruns::pipeline(4, 4);
  run->ranks[0]
      .lane(trace::Lane::Compute)
      .push(3'000'000, 3'000'100, trace::OpKind::F, 0, 9, 0, -1, -1, -1);
  view.setRun(run);
  int worst = 1 << 20, worstWidth = 0;
  std::int64_t worstEnd = 0;
  QImage worstAxis;
  for (int width = 700; width <= 1400; width += 6)
    for (std::int64_t end : {std::int64_t{12'000}, std::int64_t{3'000'000}, std::int64_t{1'250}}) {
      view.resize(width, 120);
      view.setVisibleRange({0, end});
      const QImage image =
          testruns::renderView(view, Qt::white).convertToFormat(QImage::Format_RGB32);
      const auto spans = axisLabelSpans(image, 10);
      for (std::size_t i = 1; i < spans.size(); ++i)
        if (spans[i].first - spans[i - 1].second < worst) {
          worst = spans[i].first - spans[i - 1].second;
          worstWidth = width;
          worstEnd = end;
          worstAxis = image.copy(0, 0, width, TimelineView::kAxis);
        }
    }
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    worstAxis.save(QString(dir) + "/axis-closest-labels.png");
  EXPECT_GE(worst, 20) << "at width " << worstWidth << " over [0, " << worstEnd << "] ns";
}

}  // namespace
}  // namespace ps::ui
