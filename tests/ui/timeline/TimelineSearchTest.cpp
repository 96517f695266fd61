// The API others build on (the search bar and the details panel): highlights dim every op but
// the matches, centerOn scrolls to an op and selects it (selectionChanged), flows draw an arrow
// from each send to its matching receive.

#include <gtest/gtest.h>

#include <QPainter>
#include <QSignalSpy>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/FlowMatcher.h"
#include "ui/timeline/KindPalette.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using testruns::pipeline;
using trace::Lane;
using Selection = TimelineView::Selection;

QColor inside(const QImage& image, const QRect& box) {
  return image.pixel(box.left() + 3, box.top() + 3);
}

TEST(TimelineSearch, HighlightsDimEverythingButTheMatches) {
  TimelineView view;
  view.resize(1200, 300);
  view.setRun(pipeline(4, 4));
  const QColor f = kindColor(trace::OpKind::F);
  const Selection match{2, Lane::Compute, 1}, other{2, Lane::Compute, 0};
  EXPECT_EQ(inside(testruns::renderView(view), view.opRect(other)), f);
  view.setHighlights({match});
  EXPECT_EQ(view.highlightCount(), 1u);
  const QImage image = testruns::renderView(view);
  EXPECT_EQ(inside(image, view.opRect(match)), f);
  EXPECT_NE(inside(image, view.opRect(other)), f) << "dimmed";
  view.setHighlights({});
  EXPECT_EQ(inside(testruns::renderView(view), view.opRect(other)), f) << "no filter";
}

TEST(TimelineSearch, CenterOnScrollsToTheOpAndSelectsIt) {
  TimelineView view;
  view.resize(1000, 400);
  auto run = pipeline(32, 8);
  view.setRun(run);
  const TimeRange whole = view.visibleRange();
  view.setVisibleRange({whole.start, whole.start + whole.length() / 20});
  QSignalSpy spy(&view, &TimelineView::selectionChanged);
  const Selection op{30, Lane::Compute, 12};  // a backward far right and far down
  view.centerOn(op);
  EXPECT_EQ(view.selection(), op);
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.at(0).at(0).value<Selection>(), op);
  const auto visible = view.visibleRanks();
  EXPECT_NE(std::find(visible.begin(), visible.end(), 30), visible.end());
  const QRect r = view.opRect(op);
  ASSERT_FALSE(r.isEmpty());
  EXPECT_GE(r.top(), TimelineView::kAxis);
  EXPECT_LE(r.bottom(), view.height());
  const auto& lane = run->ranks[30].lane(Lane::Compute);
  EXPECT_LE(view.visibleRange().start, lane.start[12]);
  EXPECT_GE(view.visibleRange().end, lane.end[12]);
}

TEST(TimelineSearch, FlowsPairEachSendWithItsReceive) {
  auto run = pipeline(4, 4);
  const auto flows = matchFlows(*run);
  ASSERT_EQ(flows.size(), 3u * 4u);  // every hand-over between 4 ranks, 4 micro-batches
  for (const Flow& f : flows) {
    EXPECT_EQ(f.toRank, f.fromRank + 1);
    const auto& send = run->ranks[f.fromRank].lane(Lane::Send);
    const auto& recv = run->ranks[f.toRank].lane(Lane::Recv);
    EXPECT_EQ(send.microbatch[f.send], recv.microbatch[f.recv]);
  }
  TimelineView view;
  view.resize(1200, 300);
  view.setRun(run);
  (void)testruns::renderView(view);
  EXPECT_EQ(view.drawnFlows(), 0u) << "off by default";
  view.setFlowsVisible(true);
  const QImage image = testruns::renderView(view);
  EXPECT_EQ(view.drawnFlows(), flows.size());
  const TimeRange r = view.visibleRange();
  view.setVisibleRange({r.start, r.start + r.length() / 6});
  (void)testruns::renderView(view);
  EXPECT_LT(view.drawnFlows(), flows.size()) << "only those in view";
}

}  // namespace
}  // namespace ps::ui

namespace ps::ui {
namespace {

// Screenshots for review: search highlights (micro-batch 3), a range band, flows, 8 ranks.
TEST(TimelineSearch, Screenshots) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (bool dark : {false, true}) {
    testruns::usePalette(dark);
    TimelineView view;
    view.resize(1280, 420);
    auto run = pipeline(8, 8);
    view.setRun(run);
    std::vector<Selection> matches;
    for (int r = 0; r < 8; ++r) {
      const auto& lane = run->ranks[r].lane(Lane::Compute);
      for (std::size_t i = 0; i < lane.size(); ++i)
        if (lane.microbatch[i] == 3) matches.push_back({r, Lane::Compute, i});
    }
    view.setHighlights(matches);
    const TimeRange r = view.visibleRange();
    view.setRangeBand({r.start + r.length() / 5, r.start + r.length() / 3});
    view.setFlowsVisible(true);
    view.select({4, Lane::Compute, 10});
    view.show();
    testruns::shot(view, QString("search-%1").arg(dark ? "dark" : "light"));
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
