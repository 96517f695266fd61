// Issue 34 item 20: the TeraPipe preset showed M 1 in the Plan panel beside a run of 25
// micro-batches. Both are right: M counts the sequences, the run pipelines each sequence's token
// slices as its micro-batches. The Stats report now says so, beside the count, and so does the M
// box ("1 × 25 token slices").

#include <gtest/gtest.h>

#include <QAction>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTest>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/StatsPanel.h"

namespace ps::ui {
namespace {

TEST(TokenSlicesStats, ASlicedRunSaysItsMicroBatchesAreTheSequencesSlices) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("slices.sqlite"))));
  auto* stats = w.findChild<StatsPanel*>("statsPanel");
  ASSERT_NE(stats, nullptr);
  EXPECT_FALSE(stats->text().contains("token slices")) << "the demo is not sliced";
  auto* plan = w.findChild<QScrollArea*>("planScroll");
  ASSERT_NE(plan, nullptr);
  QTest::qWait(20);
  ASSERT_FALSE(plan->horizontalScrollBar()->isVisible()) << "the demo's plan fits the dock";

  w.findChild<QAction*>("preset:terapipe")->trigger();
  test_window::waitForRun(w);
  auto* m = w.findChild<QSpinBox*>("microbatchesSpin");
  EXPECT_EQ(m->value(), 1);
  // The M box itself names the slices beside the count, and its tooltip says why.
  EXPECT_EQ(m->text(), "1 × 25 token slices (auto)") << "the count TeraPipe's DP picks";
  EXPECT_TRUE(m->toolTip().contains("cut into token slices")) << m->toolTip().toStdString();
  // The words live inside the box: they must not widen the Plan dock past its width (a
  // horizontal scrollbar appeared under the stage editor at 1280x720).
  QTest::qWait(20);
  EXPECT_FALSE(plan->horizontalScrollBar()->isVisible())
      << "needs " << plan->widget()->width() << " px in " << plan->viewport()->width();
  QString report = stats->text();
  EXPECT_TRUE(report.contains("micro-batches 25")) << report.toStdString();
  EXPECT_TRUE(
      report.contains("token slices   1 sequence (M) × 25 slices (auto) = the 25 "
                      "micro-batches pipelined\n"))
      << report.toStdString();

  w.findChild<QAction*>("preset:terapipe-baseline")->trigger();
  test_window::waitForRun(w);
  EXPECT_EQ(m->text(), "1 × 8 token slices");
  report = stats->text();
  EXPECT_TRUE(
      report.contains("token slices   1 sequence (M) × 8 slices (8) = the 8 "
                      "micro-batches pipelined\n"))
      << report.toStdString();

  w.findChild<QAction*>("preset:gpipe")->trigger();
  test_window::waitForRun(w);
  EXPECT_EQ(m->suffix(), "") << "an unsliced plan's M is a plain count";
}

}  // namespace
}  // namespace ps::ui
