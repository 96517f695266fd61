// Overlays stay in the plot (issue 11, defect 12): the selection outline and dependency arrows
// never paint over the rank labels, op labels are drawn over them; axis labels are never cut at
// the right edge and read in sensible units at any zoom ("1.64995 ms", not "1649950 ns").

#include <gtest/gtest.h>

#include <QPainter>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/TimeMapping.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using testruns::pipeline;
using trace::Lane;

TEST(TimelineOverlays, SelectionOfAnOpPartlyLeftOfTheViewLeavesTheGutterAlone) {
  TimelineView view;
  view.resize(900, 300);
  auto run = pipeline(4, 8);
  view.setRun(run);
  // Rank 1's third forward starts 300 ns before the view does.
  const auto& lane = run->ranks[1].lane(Lane::Compute);
  view.setVisibleRange({lane.start[2] + 300, lane.start[2] + 20'000});
  const QImage plain = testruns::renderView(view, Qt::magenta);
  view.select({1, Lane::Compute, 2});
  ASSERT_TRUE(view.selection().valid());
  ASSERT_FALSE(view.selectionDependencies().empty()) << "F(1, 2) depends on F(0, 2)";
  const QImage selected = testruns::renderView(view, Qt::magenta);
  int changedInGutter = 0, changedInPlot = 0;
  for (int y = 0; y < plain.height(); ++y)
    for (int x = 0; x < plain.width(); ++x) {
      const bool differs = plain.pixel(x, y) != selected.pixel(x, y);
      (x < TimelineView::kGutter || y < TimelineView::kAxis ? changedInGutter : changedInPlot) +=
          differs;
    }
  EXPECT_EQ(changedInGutter, 0) << "outline or arrows over the rank labels or the axis";
  EXPECT_GT(changedInPlot, 50) << "the selection is drawn";
}

TEST(TimelineOverlays, OpLabelsAreDrawnOverDependencyArrows) {
  TimelineView view;
  view.resize(700, 300);
  auto run = pipeline(3, 2);
  view.setRun(run);
  // B(1, 0) depends on F(1, 0) on its own rank: the arrow runs along the row, through the
  // label "1" of F(1, 1) in between.
  const auto& lane = run->ranks[1].lane(Lane::Compute);
  ASSERT_EQ(lane.kind[2], trace::OpKind::B);
  ASSERT_EQ(lane.microbatch[2], 0);
  const QImage before = testruns::renderView(view, Qt::magenta);
  view.select({1, Lane::Compute, 2});
  const QImage after = testruns::renderView(view, Qt::magenta);
  const QRect label = view.opRect({1, Lane::Compute, 1});
  ASSERT_FALSE(label.isEmpty());
  const QRect centre(label.center().x() - 4, label.center().y() - 6, 9, 12);
  int differing = 0, ink = 0, crossed = 0;
  for (int y = centre.top(); y <= centre.bottom(); ++y)
    for (int x = centre.left(); x <= centre.right(); ++x) {
      const bool text = QColor(before.pixel(x, y)).lightness() > 230;  // white on blue
      ink += text;
      differing += text && QColor(after.pixel(x, y)).lightness() < 150;
      crossed += before.pixel(x, y) != after.pixel(x, y);
    }
  EXPECT_GT(ink, 3) << "a label is there";
  EXPECT_GT(crossed, 0) << "the arrow runs through the label's box";
  EXPECT_EQ(differing, 0) << "text pixels painted over";
}

TEST(TimelineOverlays, AxisLabelsUseTheUnitOfTheRangeAtDeepZoom) {
  EXPECT_EQ(tickLabel(1'649'950, 50, 1'650'000), "1.64995 ms");
  EXPECT_EQ(tickLabel(1'649'950, 50), "1649950 ns") << "the step alone (old behaviour)";
  EXPECT_EQ(tickLabel(2'500'000'000, 100'000'000, 2'600'000'000), "2.5 s");
  EXPECT_EQ(tickLabel(0, 200'000, 5'000'000), "0.0 ms");
}

TEST(TimelineOverlays, NoAxisLabelIsCutAtTheRightEdge) {
  TimelineView view;
  view.resize(TimelineView::kGutter + 1000 + 8, 200);
  view.setRun(pipeline(2, 2));
  // Ticks every 100 ns from 0; the last one 15 px before the right edge.
  view.setVisibleRange({1'649'000, 1'649'000 + 1015});
  const QImage image = testruns::renderView(view, Qt::magenta);
  const QRgb base = image.pixel(TimelineView::kGutter + 1, 3);
  int inkNearEdge = 0;
  for (int y = 2; y < TimelineView::kAxis - 7; ++y)
    for (int x = image.width() - 3; x < image.width(); ++x)
      inkNearEdge += image.pixel(x, y) != base;
  EXPECT_EQ(inkNearEdge, 0) << "a label runs off the right edge";
}

}  // namespace
}  // namespace ps::ui
