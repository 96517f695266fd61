// Issue 34 (Teach): the replay draws ops as they start, says why the current op waits, and draws
// each rank's activations in flight on its lane. On the demo: 1F1B, p = 4, m = 8, F = 100 µs,
// B = 200 µs, transfers on the links.

#include <gtest/gtest.h>

#include <QTest>

#include <QDockWidget>

#include "tests/common/TestUtil.h"
#include "tests/ui/TimelineTestRuns.h"
#include "trace/Units.h"
#include "trace/analysis/ActivationsInFlight.h"
#include "ui/MainWindow.h"
#include "ui/TeachPanel.h"
#include "ui/teach/InFlightOverlay.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::Lane;
using trace::OpKind;

// The window at 1280×720 with the Teach dock in front, on the demo.
TeachPanel* replayWindow(MainWindow& w, const std::string& path) {
  if (!w.openDemo(QString::fromStdString(path))) return nullptr;
  w.resize(1280, 720);
  w.show();
  w.findChild<QDockWidget*>("teachDock")->raise();
  QApplication::processEvents();
  return w.findChild<TeachPanel*>("teachPanel");
}

// Steps the replay to `kind`(mb) on `rank`; returns its position (count() when not found).
std::size_t replayPositionOf(TeachPanel& teach, int rank, OpKind kind, int mb) {
  const QString want = QString("rank %1 starts %2 of micro-batch %3 on")
                           .arg(rank)
                           .arg(QString::fromUtf8(trace::opKindName(kind).data()))
                           .arg(mb);
  for (std::size_t k = 0; k < teach.count(); ++k) {
    teach.setPosition(k);
    if (teach.currentText().contains(want)) return k;
  }
  return teach.count();
}

TEST(TeachReplay, MidwayOnlyTheOpsThatHaveStartedAreDrawn) {
  test::TempDir dir;
  MainWindow w;
  TeachPanel* teach = replayWindow(w, dir.file("replay.sqlite"));
  ASSERT_NE(teach, nullptr);
  TimelineView* view = w.timeline();
  const trace::RunTrace& run = *view->run();
  view->fit();
  QApplication::processEvents();
  const std::size_t whole = (view->grab(), view->drawnItems());
  const std::size_t at = replayPositionOf(*teach, 3, OpKind::B, 2);
  ASSERT_LT(at, teach->count());
  EXPECT_TRUE(teach->replaying());
  ASSERT_TRUE(view->revealUntil().has_value());
  const std::int64_t t = *view->revealUntil();
  view->fit();
  view->grab();
  // Every compute op on screen has a box exactly when it has started by t.
  int drawn = 0, hidden = 0;
  for (int r : view->visibleRanks()) {
    const auto& c = run.ranks[r].lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const bool shown = !view->opRect({r, Lane::Compute, i}).isEmpty();
      EXPECT_EQ(shown, c.start[i] <= t) << "rank " << r << " op " << i;
      (shown ? drawn : hidden)++;
    }
  }
  EXPECT_GT(drawn, 10);
  EXPECT_GT(hidden, 10);
  EXPECT_LT(view->drawnItems(), whole);
  // The lanes carry the activations in flight, up to t.
  auto* overlay = view->findChild<InFlightOverlay*>("teachInFlight");
  ASSERT_NE(overlay, nullptr);
  EXPECT_TRUE(overlay->isVisible());
  overlay->grab();
  EXPECT_GE(overlay->drawnLanes(), 2);
  testruns::shot(w, "teach-replay-midway");
  // Hiding the dock gives the timeline back whole.
  w.findChild<QDockWidget*>("statsDock")->raise();
  QTest::qWait(20);
  ASSERT_TRUE(teach->visibleRegion().isEmpty());  // the Stats tab is in front
  EXPECT_FALSE(view->revealUntil().has_value());
  view->grab();
  EXPECT_EQ(view->drawnItems(), whole);
}

TEST(TeachReplay, TheWhySentenceNamesTheProducerAndWhenItsOutputArrives) {
  test::TempDir dir;
  MainWindow w;
  TeachPanel* teach = replayWindow(w, dir.file("why.sqlite"));
  ASSERT_NE(teach, nullptr);
  const trace::RunTrace& run = *w.timeline()->run();
  const std::size_t at = replayPositionOf(*teach, 2, OpKind::F, 3);
  ASSERT_LT(at, teach->count());
  // Rank 2's F3 needs rank 1's F3, brought by the receive on rank 2: its end is the arrival.
  const auto& recv = run.ranks[2].lane(Lane::Recv);
  std::int64_t arrival = -1;
  for (std::size_t i = 0; i < recv.size(); ++i)
    if (recv.kind[i] == OpKind::RECV_F && recv.microbatch[i] == 3) arrival = recv.end[i];
  ASSERT_GE(arrival, 0);
  const QString expected =
      QString("F3 on rank 2 waits for rank 1's F3: the activation arrives at %1")
          .arg(QString::fromStdString(trace::formatDuration(arrival - run.timeExtent().first)));
  EXPECT_TRUE(teach->whyText().startsWith(expected)) << teach->whyText().toStdString();
  // The timeline's arrows come from that producer.
  const auto deps = w.timeline()->selectionDependencies();
  ASSERT_EQ(deps.size(), 1u);
  EXPECT_EQ(deps[0].first, 1);
  // And the last stage's backward waits for its own forward.
  ASSERT_LT(replayPositionOf(*teach, 3, OpKind::B, 0), teach->count());
  EXPECT_TRUE(teach->whyText().startsWith("B0 on rank 3 waits for its own F0, done at "))
      << teach->whyText().toStdString();
}

// The count drawn on each lane is the table's, at every op of the replay (forwards begun before
// the op, backwards ended by it), and rank 0 of 1F1B peaks at p = 4.
TEST(TeachReplay, TheLanesCountIsTheTablesAtEveryOp) {
  test::TempDir dir;
  MainWindow w;
  TeachPanel* teach = replayWindow(w, dir.file("count.sqlite"));
  ASSERT_NE(teach, nullptr);
  const trace::RunTrace& run = *w.timeline()->run();
  const auto inFlight = trace::activationsInFlight(run);
  EXPECT_EQ(inFlight.peak[0], 4);
  EXPECT_EQ(inFlight.peak[3], 1);
  for (std::size_t k = 0; k < teach->count(); ++k) {
    teach->setPosition(k);
    const std::int64_t t = *w.timeline()->revealUntil();
    const auto states = teach->rankStates();
    for (int r = 0; r < 4; ++r)
      ASSERT_EQ(inFlight.seenAt(r, t), states[r].inFlight) << "op " << k << " rank " << r;
  }
}

}  // namespace
}  // namespace ps::ui
