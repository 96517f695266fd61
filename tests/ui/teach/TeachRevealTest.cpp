// Issue 34 (Teach): predict, then reveal — the measured bubble beside the student's guess and the
// paper's formula with the run's numbers put in.

#include <gtest/gtest.h>

#include <QTest>

#include <QDockWidget>

#include "runtime/schedules/ClosedFormFill.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/TimelineTestRuns.h"
#include "ui/MainWindow.h"
#include "ui/TeachPanel.h"
#include "ui/teach/RevealBox.h"
#include "ui/teach/RevealText.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(TeachReveal, TheFormulaIsFilledInWithTheRunsNumbers) {
  const auto gpipe = runtime::fillBubbleFormula("1f1b", 4, 8, 1);
  ASSERT_TRUE(gpipe.has_value());
  EXPECT_EQ(gpipe->numerator, 3);
  EXPECT_EQ(gpipe->denominator, 11);
  EXPECT_EQ(runtime::filledBubbleText(*gpipe), "(4-1)/(8+4-1) = 3/11 = 27.27 %");
  const auto interleaved = runtime::fillBubbleFormula("interleaved-1f1b", 4, 8, 2);
  ASSERT_TRUE(interleaved.has_value());
  EXPECT_EQ(runtime::filledBubbleText(*interleaved), "(4-1)/(2·8+4-1) = 3/19 = 15.79 %");
  const auto zb = runtime::fillBubbleFormula("zb-h1", 4, 8, 1);
  ASSERT_TRUE(zb.has_value());
  EXPECT_EQ(runtime::filledBubbleText(*zb), "(4-1)/(3·8+4-1) = 3/27 = 1/9 = 11.11 %");
  EXPECT_FALSE(runtime::fillBubbleFormula("dualpipe-v", 4, 8, 2).has_value());
}

TEST(TeachReveal, TheRevealShowsMeasuredPaperAndTheGuesssGap) {
  RevealFacts facts;
  facts.schedule = "dualpipe-v";
  facts.p = 4;
  facts.m = 8;
  facts.v = 2;
  facts.measured = 0.0588;
  facts.rank0Peak = 9;
  const auto lines = revealLines(facts, {10.0, 4});
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "Measured bubble: 5.88 % of the step idle; your guess 10.00 %: 4.12 points over");
  EXPECT_EQ(lines[1], "dualpipe-v has no closed-form bubble here at p = 4, m = 8, v = 2.");
  EXPECT_EQ(lines[2], "For comparison, 1F1B's (p-1)/(m+p-1) = (4-1)/(8+4-1) = 3/11 = 27.27 %.");
  EXPECT_EQ(lines[3],
            "Rank 0's peak in flight: 9 (forwards begun whose backward has not ended); your guess "
            "4: 5 under");
}

TEST(TeachReveal, OnTheDemoTheRevealGives3Over11) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("reveal.sqlite"))));
  w.resize(1280, 720);
  w.show();
  w.findChild<QDockWidget*>("teachDock")->raise();
  QApplication::processEvents();
  auto* teach = w.findChild<TeachPanel*>("teachPanel");
  ASSERT_NE(teach, nullptr);
  RevealBox* box = teach->revealBox();
  teach->setPosition(20);  // halfway through the replay: the timeline shows the past only
  ASSERT_TRUE(w.timeline()->revealUntil().has_value());
  box->setGuess(20.0, 8);
  box->reveal();
  const QString text = box->resultText();
  EXPECT_TRUE(
      text.contains("Measured bubble: 27.27 % of the step idle; your guess 20.00 %: "
                    "7.27 points under"))
      << text.toStdString();
  EXPECT_TRUE(
      text.contains("1F1B's paper at p = 4, m = 8: (p-1)/(m+p-1) = (4-1)/(8+4-1) = "
                    "3/11 = 27.27 %"))
      << text.toStdString();
  EXPECT_TRUE(
      text.contains("Rank 0's peak in flight: 4 (forwards begun whose backward has not "
                    "ended); your guess 8: 4 over"))
      << text.toStdString();
  // The reveal ends the replay: the whole run is drawn again.
  EXPECT_FALSE(w.timeline()->revealUntil().has_value());
  testruns::shot(w, "teach-reveal");
}

// Played to its end, the replay reveals by itself and gives the timeline back whole.
TEST(TeachReveal, TheReplaysEndReveals) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("end.sqlite"))));
  w.resize(1280, 720);
  w.show();
  w.findChild<QDockWidget*>("teachDock")->raise();
  QApplication::processEvents();
  auto* teach = w.findChild<TeachPanel*>("teachPanel");
  ASSERT_NE(teach, nullptr);
  teach->setPosition(teach->count() - 2);
  ASSERT_FALSE(teach->revealBox()->revealed());
  teach->setPlaying(true);
  for (int i = 0; i < 500 && !teach->revealBox()->revealed(); ++i)
    QTest::qWait(10);
  EXPECT_TRUE(teach->revealBox()->revealed());
  EXPECT_FALSE(teach->playing());
  EXPECT_EQ(teach->position(), teach->count() - 1);
  EXPECT_FALSE(w.timeline()->revealUntil().has_value());
}

}  // namespace
}  // namespace ps::ui
