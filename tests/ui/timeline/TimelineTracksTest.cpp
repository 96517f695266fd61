// Many ranks (issue 11, defect 5): the tracks scroll vertically under a pinned time axis, collapse
// to thin rows, pin to the top, and their labels stay readable at 64 ranks. TrackLayout's maths
// on its own, then the view and its panel.

#include <gtest/gtest.h>

#include <QLabel>
#include <QScrollBar>
#include <QTest>
#include <QWheelEvent>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/TimelinePanel.h"
#include "ui/timeline/TimelineView.h"
#include "ui/timeline/TrackLayout.h"

namespace ps::ui {
namespace {

using testruns::pipeline;

constexpr int kTrack = 46;  // an expanded track's height: 4 + 24 + 2·7 + 4

TEST(TrackLayout, PinnedFirstThenScrolledAndClippedBelowThem) {
  TrackLayout layout;
  layout.reset(10);
  EXPECT_EQ(layout.trackHeight(3), kTrack);
  EXPECT_EQ(layout.scrolledHeight(), 10 * kTrack);
  layout.setPinned(7, true);
  auto tracks = layout.place(26, 26 + 3 * kTrack, 0);
  ASSERT_EQ(tracks.size(), 3u);
  EXPECT_EQ(tracks[0].rank, 7);
  EXPECT_TRUE(tracks[0].pinned);
  EXPECT_EQ(tracks[0].top, 26);
  EXPECT_EQ(tracks[1].rank, 0);
  EXPECT_EQ(tracks[1].top, 26 + kTrack);
  // Scrolled by half a track: rank 0 is cut at the pinned track's bottom, not drawn over it.
  tracks = layout.place(26, 26 + 3 * kTrack, kTrack / 2);
  EXPECT_EQ(tracks[1].rank, 0);
  EXPECT_EQ(tracks[1].clipTop, 26 + kTrack);
  EXPECT_LT(tracks[1].top, tracks[1].clipTop);
  EXPECT_EQ(layout.maxOffset(3 * kTrack), 9 * kTrack - 2 * kTrack);
}

TEST(TrackLayout, CollapsedTracksAreThinAndOffsetShowingBringsATrackIntoView) {
  TrackLayout layout;
  layout.reset(64);
  for (int r = 0; r < 64; ++r)
    layout.setCollapsed(r, true);
  EXPECT_EQ(layout.trackHeight(5), TrackLayout::kThin + 2 * TrackLayout::kThinPad);
  EXPECT_EQ(layout.maxOffset(64 * 10), 0) << "64 thin tracks fit in 640 px";
  layout.setCollapsed(40, false);
  EXPECT_EQ(layout.trackHeight(40), kTrack);
  EXPECT_EQ(layout.offsetShowing(40, 0, 200), 40 * 10 + kTrack - 200);
  EXPECT_EQ(layout.offsetShowing(2, 300, 200), 20);
}

std::shared_ptr<trace::RunTrace> many(int ranks) {
  return pipeline(ranks, 8);
}

TEST(TimelineTracks, ThirtyTwoRanksScrollVerticallyToTheLast) {
  TimelineView view;
  view.resize(900, 600);
  view.setRun(many(32));
  auto visible = view.visibleRanks();
  ASSERT_FALSE(visible.empty());
  EXPECT_EQ(visible.front(), 0);
  EXPECT_LT(visible.back(), 31) << "not every track fits";
  EXPECT_GT(view.maxVerticalOffset(), 0);
  view.setVerticalOffset(view.maxVerticalOffset());
  visible = view.visibleRanks();
  EXPECT_EQ(visible.back(), 31) << "the last rank can be scrolled to";
  EXPECT_GT(visible.front(), 0);
  view.setVerticalOffset(1'000'000);
  EXPECT_EQ(view.verticalOffset(), view.maxVerticalOffset()) << "clamped";
}

TEST(TimelineTracks, PlainWheelScrollsCtrlWheelZooms) {
  TimelineView view;
  view.resize(900, 600);
  view.setRun(many(32));
  const TimeRange before = view.visibleRange();
  QWheelEvent down(QPointF(400, 300), view.mapToGlobal(QPointF(400, 300)), QPoint(),
                   QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &down);
  EXPECT_GT(view.verticalOffset(), 0);
  EXPECT_EQ(view.visibleRange().start, before.start) << "no horizontal pan";
  EXPECT_EQ(view.visibleRange().end, before.end);
  const int offset = view.verticalOffset();
  QWheelEvent zoom(QPointF(400, 300), view.mapToGlobal(QPointF(400, 300)), QPoint(), QPoint(0, 120),
                   Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &zoom);
  EXPECT_LT(view.visibleRange().length(), before.length());
  EXPECT_EQ(view.verticalOffset(), offset);
}

TEST(TimelineTracks, PinnedTrackStaysUnderTheAxisWhileOthersScroll) {
  TimelineView view;
  view.resize(900, 600);
  view.setRun(many(32));
  view.setTrackPinned(31, true);
  EXPECT_TRUE(view.isTrackPinned(31));
  EXPECT_EQ(view.visibleRanks().front(), 31);
  view.setVerticalOffset(10 * kTrack);
  const auto visible = view.visibleRanks();
  EXPECT_EQ(visible.front(), 31);
  EXPECT_EQ(visible[1], 10);
  // Its op boxes are right under the axis.
  const QRect r = view.opRect({31, trace::Lane::Compute, 0});
  ASSERT_FALSE(r.isEmpty());
  EXPECT_EQ(r.top(), TimelineView::kAxis + 4);
}

TEST(TimelineTracks, ClickOnTheDisclosureMarkCollapsesAndAgainExpands) {
  TimelineView view;
  view.resize(900, 600);
  view.setRun(many(32));
  view.show();
  const int before = static_cast<int>(view.visibleRanks().size());
  const QPoint mark(6, TimelineView::kAxis + 4 + TimelineView::kCompute / 2);
  QTest::mouseClick(&view, Qt::LeftButton, {}, mark);
  EXPECT_TRUE(view.isTrackCollapsed(0));
  EXPECT_GT(static_cast<int>(view.visibleRanks().size()), before) << "a thin row frees room";
  QTest::mouseClick(&view, Qt::LeftButton, {},
                    QPoint(6, TimelineView::kAxis + TrackLayout::kThinPad + 2));
  EXPECT_FALSE(view.isTrackCollapsed(0));
  // The pin mark on the right of the label pins.
  QTest::mouseClick(&view, Qt::LeftButton, {},
                    QPoint(TimelineView::kGutter - 8, TimelineView::kAxis + kTrack + 12));
  EXPECT_TRUE(view.isTrackPinned(1));
}

TEST(TimelineTracks, SixtyFourCollapsedRanksAllShowWithLabels) {
  TimelineView view;
  view.resize(1000, TimelineView::kAxis + 64 * 10 + 4);
  view.setRun(many(64));
  view.setAllTracksCollapsed(true);
  EXPECT_EQ(view.visibleRanks().size(), 64u);
  EXPECT_EQ(view.maxVerticalOffset(), 0);
  const QImage image = view.grab().toImage();
  // Labels thin out but are there, all over the gutter's height.
  int inkedRows = 0;
  const QRgb base = image.pixel(TimelineView::kGutter / 2, 2);
  for (int y = TimelineView::kAxis; y < image.height(); ++y) {
    bool ink = false;
    for (int x = 16; x < TimelineView::kGutter - 16 && !ink; ++x)
      ink = image.pixel(x, y) != base;
    inkedRows += ink;
  }
  EXPECT_GT(inkedRows, (image.height() - TimelineView::kAxis) / 5);
}

TEST(TimelinePanel, ScrollBarFollowsTheViewAndScrollsIt) {
  TimelinePanel panel;
  panel.resize(900, 500);
  panel.view()->setRun(many(32));
  panel.show();
  auto* bar = panel.findChild<QScrollBar*>("timelineScrollBar");
  ASSERT_NE(bar, nullptr);
  EXPECT_EQ(bar->maximum(), panel.view()->maxVerticalOffset());
  EXPECT_GT(bar->maximum(), 0);
  bar->setValue(bar->maximum() / 2);
  EXPECT_EQ(panel.view()->verticalOffset(), bar->maximum() / 2);
  panel.view()->setVerticalOffset(0);
  EXPECT_EQ(bar->value(), 0);
}

TEST(TimelinePanel, TitleToolbarAndViewAreFoundByName) {
  TimelinePanel panel;
  EXPECT_EQ(panel.objectName(), "timelinePanel");
  panel.setTitle("run 3 · 1f1b p=4 m=8");
  auto* title = panel.findChild<QLabel*>("timelineTitle");
  ASSERT_NE(title, nullptr);
  EXPECT_EQ(title->text(), "run 3 · 1f1b p=4 m=8");
  auto* bar = new QLabel("search");
  bar->setObjectName("searchBar");
  panel.setToolbar(bar);
  EXPECT_EQ(panel.findChild<QLabel*>("searchBar"), bar);
  EXPECT_EQ(bar->parent(), &panel);
  EXPECT_EQ(panel.findChild<TimelineView*>("timelineView"), panel.view());
}

// Screenshots for review: 8, 32 and 64 ranks, light and dark.
TEST(TimelineTracks, Screenshots) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (bool dark : {false, true}) {
    testruns::usePalette(dark);
    for (int ranks : {8, 32, 64}) {
      TimelinePanel panel;
      panel.resize(1280, 640);
      panel.setTitle(QString("gpipe p=%1 m=8").arg(ranks));
      panel.view()->setRun(many(ranks));
      if (ranks == 64)
        for (int r = 0; r < 64; r += 1)
          if (r % 8) panel.view()->setTrackCollapsed(r, true);
      if (ranks >= 32) panel.view()->setTrackPinned(ranks - 1, true);
      panel.show();
      testruns::shot(panel, QString("tracks-%1-%2").arg(ranks).arg(dark ? "dark" : "light"));
    }
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
