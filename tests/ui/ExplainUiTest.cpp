// Issue 13 in the app: the bubble's causes on the timeline (painted parts, the gap's hover text),
// the critical path on request, the Stats panel's causes of paper vs measured, and Papers →
// preset loading a classic figure with its teaching text.

#include <gtest/gtest.h>

#include <algorithm>

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QTest>

#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "trace/analysis/RunExplanation.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"
#include "ui/StatsPanel.h"
#include "ui/TeachPanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using test_window::waitForRun;

QAction* action(MainWindow& w, const char* name) {
  return w.findChild<QAction*>(name);
}

TEST(ExplainUi, TheDemoShowsItsIdleCausesAndTheGapSaysWhatItWaitedFor) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("why.sqlite"))));
  TimelineView* view = w.timeline();
  view->resize(1200, 400);
  (void)view->grab();
  EXPECT_GT(view->drawnCauseParts(), 4u);  // 1F1B p=4: fill, drain and waits on every rank
  // Rank 3's warm-up: before its first forward, 3 forwards of the ranks above.
  const auto& lane = view->run()->ranks[3].lane(trace::Lane::Compute);
  const QRect first = view->opRect({3, trace::Lane::Compute, 0});
  ASSERT_FALSE(first.isEmpty());
  const QString tip = view->tooltipAt({first.left() - 20, first.center().y()});
  EXPECT_TRUE(tip.contains("why:\n")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("warm-up: the pipeline filling up")) << tip.toStdString();
  EXPECT_GT(lane.start[0], 0);

  // Bubble causes off: nothing painted for them.
  action(w, "idleCausesAction")->setChecked(false);
  (void)view->grab();
  EXPECT_EQ(view->drawnCauseParts(), 0u);

  // The critical path on request.
  EXPECT_EQ(view->drawnPathOps(), 0u);
  action(w, "criticalPathAction")->setChecked(true);
  (void)view->grab();
  EXPECT_GT(view->drawnPathOps(), 8u);
}

// Issue 36 §3: View → Slack draws a band after each op with slack (none after the critical
// path's), and an op's hover text says its slack.
TEST(ExplainUi, SlackShowsAfterEachOpThatHasSomeAndInItsHoverText) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("slack.sqlite"))));
  TimelineView* view = w.timeline();
  view->resize(1200, 400);
  (void)view->grab();
  EXPECT_EQ(view->drawnSlackBands(), 0u) << "off until asked";
  action(w, "slackAction")->setChecked(true);
  (void)view->grab();
  // 1F1B p=4 m=8: rank 0's warm-up forwards wait for nothing but have slack (the first
  // micro-batch's chain is the critical one).
  const auto& slack = view->explanation()->slack.compute;
  std::size_t withSlack = 0;
  for (const auto& rank : slack)
    withSlack += static_cast<std::size_t>(
        std::count_if(rank.begin(), rank.end(), [](std::int64_t s) { return s > 0; }));
  EXPECT_GT(withSlack, 4u);
  EXPECT_EQ(view->drawnSlackBands(), withSlack) << "the whole demo is in view";
  // Rank 0's first forward is on the critical path; its second has slack.
  const QRect first = view->opRect({0, trace::Lane::Compute, 0});
  const QRect second = view->opRect({0, trace::Lane::Compute, 1});
  ASSERT_FALSE(first.isEmpty());
  ASSERT_FALSE(second.isEmpty());
  EXPECT_TRUE(view->tooltipAt(first.center()).contains("slack 0: on the critical path"))
      << view->tooltipAt(first.center()).toStdString();
  EXPECT_EQ(slack[0][1] > 0, view->tooltipAt(second.center()).contains("could take that much"))
      << view->tooltipAt(second.center()).toStdString();
  action(w, "slackAction")->setChecked(false);
  (void)view->grab();
  EXPECT_EQ(view->drawnSlackBands(), 0u);
}

TEST(ExplainUi, PapersLoadsAPresetWithItsTeachingText) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("papers.sqlite"))));
  QMenu* papers = w.findChild<QMenu*>("papersMenu");
  ASSERT_NE(papers, nullptr);
  // Every preset once, in the family submenus (PapersMenuTest checks the families).
  qsizetype presets = 0;
  for (QAction* family : papers->actions())
    for (QAction* a :
         family->menu() != nullptr ? family->menu()->actions() : QList<QAction*>{family})
      presets += a->objectName().startsWith("preset:") ? 1 : 0;
  EXPECT_EQ(presets, static_cast<qsizetype>(runtime::builtinPresets().presets.size()));
  QAction* zb = action(w, "preset:zb-h1");
  ASSERT_NE(zb, nullptr);
  zb->trigger();
  waitForRun(w);
  auto* stats = w.findChild<StatsPanel*>("statsPanel");
  ASSERT_NE(stats, nullptr);
  EXPECT_TRUE(stats->teachingText().contains("Zero Bubble Pipeline Parallelism"))
      << stats->teachingText().toStdString();
  const QString report = stats->text();
  EXPECT_TRUE(report.contains("schedule zb-h1")) << report.toStdString();
  EXPECT_TRUE(report.contains("bubble ratio   11.11 %")) << report.toStdString();
  EXPECT_TRUE(report.contains("paper bubble   11.11 %")) << report.toStdString();
  EXPECT_TRUE(report.contains("idle by cause")) << report.toStdString();
}

// A slow link: the Stats panel says how many points of the measured bubble the transfers add
// over the paper's, and on which link most of the waiting was (the gradients' way back).
TEST(ExplainUi, TheStatsPanelExplainsPaperVersusMeasured) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("gap.sqlite"))));
  runtime::RunPlanRequest slow;
  slow.spec = runtime::findPreset("gpipe")->spec;
  slow.spec.uniform.linkGbps = 100;  // 1 MiB in 84 µs against 100 µs forwards
  w.runRequest(slow);
  waitForRun(w);
  const QString report = w.findChild<StatsPanel*>("statsPanel")->text();
  EXPECT_TRUE(report.contains("paper bubble   27.27 %")) << report.toStdString();
  EXPECT_TRUE(report.contains("pts transfer waits, most on ")) << report.toStdString();
}

// Step-through on the demo (1F1B p=4 m=8, F = 100 µs, B = 200 µs): when rank 3 starts its first
// forward at 300 µs, rank 0 has three micro-batches in flight and rank 3 has waited 300 µs.
TEST(ExplainUi, StepThroughCountsActivationsInFlightAndTheBubbleSoFar) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("teach.sqlite"))));
  auto* teach = w.findChild<TeachPanel*>("teachPanel");
  ASSERT_NE(teach, nullptr);
  ASSERT_GE(teach->count(), 4u * 16u);  // 8 forwards and 8 backwards per rank, and the OPTs
  std::size_t at = teach->count();
  for (std::size_t k = 0; k < teach->count(); ++k) {
    teach->setPosition(k);
    if (teach->currentText().contains("rank 3 starts F of micro-batch 0")) {
      at = k;
      break;
    }
  }
  ASSERT_LT(at, teach->count());
  EXPECT_TRUE(teach->currentText().contains("at 300.000 µs")) << teach->currentText().toStdString();
  const auto states = teach->rankStates();
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[0].inFlight, 3);
  EXPECT_EQ(states[0].idleNs, 0);
  EXPECT_EQ(states[3].inFlight, 0);
  EXPECT_EQ(states[3].idleNs, 300000);
  // The timeline follows: the op is selected, with arrows both ways — from F(2, 0), on to
  // B(3, 0) (the last stage's backward waits for its forward) and nothing further down.
  EXPECT_EQ(w.timeline()->selection().rank, 3);
  const auto& rank3 = w.timeline()->run()->ranks[3].lane(trace::Lane::Compute);
  ASSERT_EQ(w.timeline()->selectionDependencies().size(), 1u);
  EXPECT_EQ(w.timeline()->selectionDependencies()[0].first, 2);
  ASSERT_EQ(w.timeline()->selectionDependents().size(), 1u);
  const auto [onRank, index] = w.timeline()->selectionDependents()[0];
  EXPECT_EQ(onRank, 3);
  EXPECT_EQ(rank3.kind[index], trace::OpKind::B);
  EXPECT_EQ(rank3.microbatch[index], 0);
  teach->stepForward();
  EXPECT_EQ(teach->position(), at + 1);
  teach->stepBack();
  EXPECT_EQ(teach->position(), at);
  teach->setPlaying(true);
  EXPECT_TRUE(teach->playing());
  QTest::qWait(900);
  EXPECT_GE(teach->position(), at + 2);
  teach->setPlaying(false);
}

}  // namespace
}  // namespace ps::ui
