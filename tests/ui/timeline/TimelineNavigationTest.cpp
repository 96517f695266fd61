// Nsight/Perfetto habits (issue 11): a range band with a live duration readout (drag on the
// axis), zoom to it (Enter, double-click); W/S around the pointer; zoom history (Alt+Left /
// Backspace back, Alt+Right forward); Tab focus with a visible frame.

#include <gtest/gtest.h>

#include <QLineEdit>
#include <QPainter>
#include <QTest>
#include <QVBoxLayout>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/TimelineView.h"
#include "ui/timeline/ZoomHistory.h"

namespace ps::ui {
namespace {

using testruns::pipeline;

double plotW(const TimelineView& v) {
  return v.width() - TimelineView::kGutter - 8;
}

TEST(ZoomHistory, BackAndForwardWalkTheRecordedRanges) {
  ZoomHistory h;
  EXPECT_FALSE(h.canBack());
  h.record({0, 100});
  h.record({10, 50});
  TimeRange now{20, 30};
  now = h.back(now);
  EXPECT_EQ(now.start, 10);
  now = h.back(now);
  EXPECT_EQ(now.start, 0);
  EXPECT_FALSE(h.canBack());
  now = h.forward(now);
  EXPECT_EQ(now.start, 10);
  h.record(now);  // a new zoom drops the way forward
  EXPECT_FALSE(h.canForward());
}

TEST(TimelineNavigation, DragOnTheAxisMarksABandThatEnterZoomsTo) {
  TimelineView view;
  view.resize(1100, 300);
  view.setRun(pipeline(4, 8));
  view.show();
  const TimeRange whole = view.visibleRange();
  QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(300, 10));
  QTest::mouseMove(&view, QPoint(500, 10));
  QMouseEvent move(QEvent::MouseMove, QPointF(500, 10), view.mapToGlobal(QPointF(500, 10)),
                   Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&view, &move);
  QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(500, 10));
  ASSERT_TRUE(view.hasRangeBand());
  EXPECT_EQ(view.visibleRange().length(), whole.length()) << "marking does not zoom";
  const TimeRange band = view.rangeBand();
  EXPECT_NEAR(static_cast<double>(band.length()),
              200.0 * static_cast<double>(whole.length()) / plotW(view), whole.length() / 500.0);
  // The readout is in the axis strip.
  const QImage image = view.grab().toImage();
  const QColor highlight = view.palette().color(QPalette::Highlight);
  int readout = 0;
  for (int x = 300; x < 500; ++x)
    readout += QColor(image.pixel(x, 6)) == highlight;
  EXPECT_GT(readout, 20) << "the Δ box";
  QTest::keyClick(&view, Qt::Key_Return);
  EXPECT_EQ(view.visibleRange().start, band.start);
  EXPECT_EQ(view.visibleRange().end, band.end);
  EXPECT_TRUE(view.canZoomBack());
  QTest::keyClick(&view, Qt::Key_Left, Qt::AltModifier);
  EXPECT_EQ(view.visibleRange().length(), whole.length());
  EXPECT_TRUE(view.canZoomForward());
  QTest::keyClick(&view, Qt::Key_Right, Qt::AltModifier);
  EXPECT_EQ(view.visibleRange().start, band.start);
  QTest::keyClick(&view, Qt::Key_Backspace);
  EXPECT_EQ(view.visibleRange().length(), whole.length());
}

TEST(TimelineNavigation, DoubleClickOnTheBandZoomsToIt) {
  TimelineView view;
  view.resize(1100, 300);
  view.setRun(pipeline(4, 8));
  const TimeRange r = view.visibleRange();
  view.setRangeBand({r.start + r.length() / 4, r.start + r.length() / 2});
  const int x = TimelineView::kGutter + static_cast<int>(plotW(view) * 3 / 8);
  QTest::mouseDClick(&view, Qt::LeftButton, {}, QPoint(x, 100));
  EXPECT_EQ(view.visibleRange().start, r.start + r.length() / 4);
}

TEST(TimelineNavigation, WZoomsAroundThePointerAndFitIsRecorded) {
  TimelineView view;
  view.resize(1100, 300);
  view.setRun(pipeline(4, 8));
  view.show();
  const int x = TimelineView::kGutter + 200;
  QTest::mouseMove(&view, QPoint(x, 100));
  const TimeRange before = view.visibleRange();
  const std::int64_t under = pxToTime(before, plotW(view), 200);
  QTest::keyClick(&view, Qt::Key_W);
  const TimeRange after = view.visibleRange();
  EXPECT_LT(after.length(), before.length());
  EXPECT_NEAR(static_cast<double>(pxToTime(after, plotW(view), 200)), static_cast<double>(under),
              before.length() / 500.0)
      << "the time under the pointer stays under it";
  QTest::keyClick(&view, Qt::Key_F);
  EXPECT_EQ(view.visibleRange().length(), before.length());
  view.zoomBack();
  EXPECT_EQ(view.visibleRange().length(), after.length()) << "fit went into the history";
}

TEST(TimelineNavigation, TabReachesTheViewAndItShowsAFocusFrame) {
  QWidget window;
  auto* layout = new QVBoxLayout(&window);
  auto* before = new QLineEdit(&window);
  auto* view = new TimelineView(&window);
  layout->addWidget(before);
  layout->addWidget(view);
  view->setRun(pipeline(2, 2));
  window.resize(900, 400);
  window.show();
  window.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  before->setFocus();
  EXPECT_EQ(view->focusPolicy(), Qt::StrongFocus);
  QImage unfocused = view->grab().toImage();
  QTest::keyClick(before, Qt::Key_Tab);
  ASSERT_TRUE(view->hasFocus());
  const QImage focused = view->grab().toImage();
  const QColor highlight = view->palette().color(QPalette::Highlight);
  EXPECT_EQ(QColor(focused.pixel(1, view->height() / 2)), highlight);
  EXPECT_NE(QColor(unfocused.pixel(1, view->height() / 2)), highlight);
}

}  // namespace
}  // namespace ps::ui
