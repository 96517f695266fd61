// Nested ranges of imported traces as depth rows (issue 11): an OTHER "backward" range over its
// kernels is a row of its own above them, not painted over them; folding works per row.

#include <gtest/gtest.h>

#include <QPainter>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/DepthRows.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::Lane;

TEST(DepthRows, RangesAboveTheKernelsInside) {
  auto run = testruns::nested(1);
  const DepthRows rows(run->ranks[0], 6);
  ASSERT_TRUE(rows.nested());
  EXPECT_EQ(rows.rows(), 2);
  EXPECT_EQ(rows.lane(0).size(), 3u) << "the three ranges";
  EXPECT_EQ(rows.lane(1).size(), 305u) << "every kernel";
  EXPECT_EQ(rows.placeOf(Lane::Other, 1).row, 0);
  EXPECT_EQ(rows.placeOf(Lane::Compute, 2).row, 1);
  const auto src = rows.source(1, rows.placeOf(Lane::Compute, 2).index);
  EXPECT_EQ(src.lane, Lane::Compute);
  EXPECT_EQ(src.index, 2u);
}

TEST(DepthRows, NoRowsWithoutOverlap) {
  auto run = testruns::pipeline(2, 2);
  EXPECT_FALSE(DepthRows(run->ranks[0], 6).nested());
}

TEST(TimelineDepth, BackwardRangeAndItsKernelsAreOnDifferentRows) {
  TimelineView view;
  view.resize(1200, 300);
  auto run = testruns::nested(2);
  view.setRun(run);
  const QRect range = view.opRect({0, Lane::Other, 1});
  const QRect kernel = view.opRect({0, Lane::Compute, 2});
  ASSERT_FALSE(range.isEmpty());
  ASSERT_FALSE(kernel.isEmpty());
  EXPECT_EQ(kernel.top(), range.bottom() + 1) << "the kernel's row is under the range's";
  // Both are painted: the range's colour above the kernel's.
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  QPainter p(&image);
  view.render(&p);
  p.end();
  EXPECT_NE(image.pixel(kernel.center()), image.pixel(range.center().x(), range.top() + 3));
  // Tiny kernels still fold in their row: far fewer boxes than ops.
  EXPECT_LT(view.drawnItems(), 200u);
  const QString tip = view.tooltipAt({kernel.center().x(), kernel.center().y()});
  EXPECT_TRUE(tip.contains("sgemm")) << tip.toStdString();
}

TEST(TimelineDepth, Screenshots) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (bool dark : {false, true}) {
    testruns::usePalette(dark);
    TimelineView view;
    view.resize(1280, 300);
    view.setRun(testruns::nested(3));
    view.show();
    testruns::shot(view, QString("nested-%1").arg(dark ? "dark" : "light"));
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
