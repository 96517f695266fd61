// Comparing two runs in the window (issue 34 item 16): the run selected first is A and the
// ctrl+clicked one B; the critical path, when shown, is drawn on both panes; at 1280×720 each
// pane shows every rank of a 4-rank run; the bottom dock lands on the comparison table.
// PIPESCOPE_UI_SHOTS=DIR saves the window.

#include <gtest/gtest.h>

#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTest>

#include <climits>
#include <cstdlib>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"
#include "ui/timeline/TrackLayout.h"

namespace ps::ui {
namespace {

runtime::RunPlanRequest compareViewSimRequest(const char* schedule) {
  runtime::RunPlanRequest r;
  r.spec.schedule = schedule;
  r.spec.stages = 4;
  r.spec.microbatches = 8;
  r.spec.uniform.actMb = 1;
  r.backend = runtime::Backend::Sim;
  return r;
}

// A window at 1280×720 on the demo (run 1, 1F1B) and a GPipe run (run 2), run 1 current.
struct CompareViewWindow {
  test::TempDir dir;
  MainWindow w;
  QListWidget* list = nullptr;

  CompareViewWindow() {
    EXPECT_TRUE(w.openDemo(QString::fromStdString(dir.file("cmp.sqlite"))));
    w.runRequest(compareViewSimRequest("gpipe"));
    test_window::waitForRun(w);
    w.resize(1280, 720);
    w.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&w));
    list = w.findChild<QListWidget*>("runHistory");
  }
  // A click on the history row of run `id` (ctrl held for a second run).
  void click(qint64 id, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    for (int i = 0; i < list->count(); ++i)
      if (list->item(i)->data(Qt::UserRole).toLongLong() == id) {
        const QRect r = list->visualItemRect(list->item(i));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, modifiers, r.center());
      }
    QTest::qWait(30);
  }
  TimelineView* b() const { return w.findChild<TimelineView*>("compareTimelineView"); }
  void shot(const QString& name) {
    if (const char* out = std::getenv("PIPESCOPE_UI_SHOTS"))
      w.grab().save(QString(out) + "/" + name);
  }
};

TEST(CompareView, TheRunSelectedFirstIsAAndTheCtrlClickedOneB) {
  CompareViewWindow cw;
  cw.click(1);
  cw.click(2, Qt::ControlModifier);
  ASSERT_TRUE(cw.b() && cw.b()->isVisible());
  EXPECT_EQ(cw.w.timeline()->run()->info.id, 1);
  EXPECT_EQ(cw.b()->run()->info.id, 2);
  EXPECT_TRUE(cw.w.findChild<QLabel*>("timelineTitle")->text().startsWith("A · run 1"));
  EXPECT_TRUE(cw.w.findChild<QLabel*>("compareTimelineTitle")->text().startsWith("B · run 2"));
  // The other way round: run 2 first, run 1 ctrl+clicked.
  cw.click(2);
  cw.click(1, Qt::ControlModifier);
  EXPECT_EQ(cw.w.timeline()->run()->info.id, 2);
  EXPECT_EQ(cw.b()->run()->info.id, 1);
}

TEST(CompareView, BothPanesShowEveryRankAndTheCriticalPath) {
  CompareViewWindow cw;
  cw.w.timeline()->setCriticalPathVisible(true);
  ASSERT_TRUE(cw.w.compareRuns(1, 2)) << cw.w.lastError().toStdString();
  QTest::qWait(50);
  auto* a = cw.w.timeline();
  auto* b = cw.b();
  cw.shot("compare-1280x720.png");
  EXPECT_EQ(a->visibleRanks().size(), 4u) << "pane A height " << a->height();
  EXPECT_EQ(b->visibleRanks().size(), 4u) << "pane B height " << b->height();
  for (TimelineView* v : {a, b})
    for (int rank = 0; rank < 4; ++rank) {
      // The whole compute band on screen (trackRect is cut to what shows).
      EXPECT_EQ(v->trackRect(rank).height(), TrackLayout::kCompactRow)
          << "rank " << rank << " cut off at pane height " << v->height();
    }
  EXPECT_TRUE(b->criticalPathVisible());
  b->grab();
  a->grab();
  EXPECT_GT(a->drawnPathOps(), 0u);
  EXPECT_GT(b->drawnPathOps(), 0u);
  // Hidden again from the View menu's toggle (it drives A): hidden on B too.
  a->setCriticalPathVisible(false);
  EXPECT_FALSE(b->criticalPathVisible());
  // A taller window has room for full-height rows: compact ones only where needed.
  cw.w.resize(1600, 1000);
  QTest::qWait(50);
  EXPECT_FALSE(a->compactTracks());
  EXPECT_FALSE(b->compactTracks());
  for (TimelineView* v : {a, b})
    for (int rank = 0; rank < 4; ++rank)
      EXPECT_EQ(v->trackRect(rank).height(), TrackLayout::kRow) << "1600x1000 rank " << rank;
  cw.shot("compare-1600x1000.png");
  // Back to one run: full-height rows again.
  cw.w.resize(1280, 720);
  QTest::qWait(50);
  EXPECT_TRUE(a->compactTracks());
  cw.click(1);
  EXPECT_FALSE(a->compactTracks());
}

TEST(CompareView, TheBottomDockLandsOnTheComparison) {
  CompareViewWindow cw;
  auto* details = cw.w.findChild<QDockWidget*>("detailsDock");
  auto* compare = cw.w.findChild<QDockWidget*>("compareDock");
  auto* linksDock = cw.w.findChild<QDockWidget*>("linkDock");
  linksDock->raise();  // the user looked at the links last
  QTest::qWait(20);
  cw.click(1);
  cw.click(2, Qt::ControlModifier);
  QTest::qWait(50);
  EXPECT_FALSE(compare->visibleRegion().isEmpty()) << "the Compare tab is the one raised";
  EXPECT_TRUE(details->visibleRegion().isEmpty());
  // The comparison ends: the tab in front before it is in front again (hiding the Compare tab
  // left Details, the next tab, in front).
  auto* stats = cw.w.findChild<QDockWidget*>("statsDock");
  cw.click(2);
  EXPECT_FALSE(compare->isVisible());
  EXPECT_TRUE(details->visibleRegion().isEmpty()) << "Details came to the front";
  EXPECT_FALSE(linksDock->visibleRegion().isEmpty()) << "Links, in front before, is again";
  EXPECT_TRUE(stats->visibleRegion().isEmpty());
  cw.click(1, Qt::ControlModifier);
  QTest::qWait(50);
  EXPECT_FALSE(compare->visibleRegion().isEmpty());
  EXPECT_TRUE(details->visibleRegion().isEmpty());
  cw.shot("compare-dock.png");
}

// Issue 36 §4 in the app: comparing 1F1B (A) with GPipe (B) tints B's moved ops (GPipe's
// backwards start later) and the Compare dock says the bubble's change by cause and the largest
// moves, as `compare --ops` prints them.
TEST(CompareView, BsOpsAreTintedByHowFarTheyMovedAndTheDockSaysHowTheBubbleChanged) {
  CompareViewWindow cw;
  ASSERT_TRUE(cw.w.compareRuns(1, 2)) << cw.w.lastError().toStdString();
  QTest::qWait(50);
  auto* b = cw.b();
  ASSERT_NE(b->opMoves(), nullptr);
  std::size_t moved = 0;
  for (const auto& rank : *b->opMoves())
    for (const std::int64_t d : rank)
      moved += d != 0 && d != INT64_MIN;
  EXPECT_GT(moved, 16u) << "GPipe's backwards all start later than 1F1B's";
  b->grab();
  EXPECT_EQ(b->drawnMoveBars(), moved) << "every moved op is in view";
  EXPECT_EQ(cw.w.timeline()->opMoves(), nullptr) << "A is the reference: no tint";
  // GPipe's last backward on rank 0 (B0 of micro-batch 0, its last op before OPT) starts later.
  const auto& lane = b->run()->ranks[0].lane(trace::Lane::Compute);
  std::size_t lastB = 0;
  for (std::size_t i = 0; i < lane.size(); ++i)
    if (lane.kind[i] == trace::OpKind::B) lastB = i;
  const QRect box = b->opRect({0, trace::Lane::Compute, lastB});
  ASSERT_FALSE(box.isEmpty());
  EXPECT_TRUE(b->tooltipAt(box.center()).contains("vs A: starts 2.100 ms later"))
      << b->tooltipAt(box.center()).toStdString();
  auto* text = cw.w.findChild<QPlainTextEdit*>("compareOpsText");
  ASSERT_NE(text, nullptr);
  const QString ops = text->toPlainText();
  EXPECT_TRUE(ops.startsWith("bubble change by cause (points of the step, B - A): "))
      << ops.toStdString();
  EXPECT_TRUE(ops.contains("ops matched 68; only in A 0, only in B 0")) << ops.toStdString();
  EXPECT_TRUE(ops.contains("largest moves")) << ops.toStdString();
  cw.shot("compare-ops-1280x720.png");
  // Back to one run: the tint goes with the comparison.
  cw.click(1);
  QTest::qWait(30);
  EXPECT_EQ(b->opMoves(), nullptr);
}

}  // namespace
}  // namespace ps::ui
