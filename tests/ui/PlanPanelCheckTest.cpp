// The plan panel checks its knobs (issue 11, defects 8 and 9): a bad knob is shown at the knob
// before Run and cleared once valid, quickly enough for every change; Rerun on change makes one
// run per burst of changes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include "runtime/run/RunConfig.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/PlanCheckCases.h"
#include "tests/ui/PlanPanelRequests.h"
#include "ui/DarkPalette.h"
#include "ui/PlanPanel.h"
#include "ui/PlanPanelTips.h"
#include "ui/RunController.h"

namespace ps::ui {
namespace {

using test_requests::configOf;
using test_requests::oddCpuRequest;
using test_requests::oddSimRequest;

TEST(PlanPanel, FourUpPressesWithRerunOnChangeRunTheFirstAtOnceAndTheLastOnce) {
  PlanPanel panel;
  panel.show();
  auto* rerun = panel.findChild<QCheckBox*>("rerunCheck");
  auto* m = panel.findChild<QSpinBox*>("microbatchesSpin");
  ASSERT_TRUE(rerun && m);
  rerun->setChecked(true);
  QSignalSpy runs(&panel, &PlanPanel::runRequested);
  m->setFocus();
  for (int i = 0; i < 4; ++i) {
    QTest::keyClick(m, Qt::Key_Up);
    if (i == 0) {
      // No waiting for the first change of a burst.
      ASSERT_EQ(runs.count(), 1);
      EXPECT_EQ(runs[0][0].value<runtime::RunPlanRequest>().spec.microbatches, 9);
    }
    QTest::qWait(50);  // quicker than the delay: still one burst
  }
  EXPECT_EQ(m->value(), 12);
  EXPECT_EQ(runs.count(), 1);
  QTest::qWait(PlanPanel::kRerunDelayMs + 200);
  ASSERT_EQ(runs.count(), 2);
  EXPECT_EQ(runs[1][0].value<runtime::RunPlanRequest>().spec.microbatches, 12);
  QTest::qWait(PlanPanel::kRerunDelayMs + 100);
  EXPECT_EQ(runs.count(), 2);
  // After a quiet spell the next change runs at once again.
  QTest::keyClick(m, Qt::Key_Up);
  ASSERT_EQ(runs.count(), 3);
  EXPECT_EQ(runs[2][0].value<runtime::RunPlanRequest>().spec.microbatches, 13);
}

TEST(PlanPanel, AnImpossiblePlanIsShownAtTheKnobAndClearedWhenValid) {
  PlanPanel panel;
  auto* schedule = panel.findChild<QComboBox*>("scheduleCombo");
  auto* m = panel.findChild<QSpinBox*>("microbatchesSpin");
  auto* error = panel.findChild<QLabel*>("planError");
  auto* run = panel.findChild<QPushButton*>("runButton");
  ASSERT_TRUE(schedule && m && error && run);
  panel.findChild<QCheckBox*>("rerunCheck")->setChecked(true);
  QSignalSpy runs(&panel, &PlanPanel::runRequested);
  schedule->setCurrentIndex(schedule->findData("zb-h1"));
  m->setValue(2);
  // zb-h1 needs m >= p: said under the panel, the micro-batches marked, Run off.
  EXPECT_TRUE(error->isVisibleTo(&panel));
  EXPECT_TRUE(error->text().contains("m >= p")) << error->text().toStdString();
  EXPECT_TRUE(m->property("invalid").toBool());
  EXPECT_FALSE(panel.findChild<QSpinBox*>("stagesSpin")->property("invalid").toBool());
  EXPECT_FALSE(run->isEnabled());
  // The schedule change (still valid with the default micro-batches) ran at once; the burst's
  // end finds the plan invalid and does not rerun it.
  EXPECT_EQ(runs.count(), 1);
  QTest::qWait(PlanPanel::kRerunDelayMs + 150);
  EXPECT_EQ(runs.count(), 1) << "an invalid plan is not rerun";
  m->setValue(4);
  EXPECT_FALSE(error->isVisibleTo(&panel));
  EXPECT_FALSE(m->property("invalid").toBool());
  EXPECT_TRUE(run->isEnabled());
}

TEST(PlanPanel, BadCostsAndModelOptionsAreShownAtTheirKnob) {
  PlanPanel panel;
  panel.findChild<QDoubleSpinBox*>("wgradSpin")->setValue(500);  // more than B = 200
  auto* wgrad = panel.findChild<QDoubleSpinBox*>("wgradSpin");
  EXPECT_TRUE(wgrad->property("invalid").toBool());
  EXPECT_TRUE(panel.findChild<QWidget*>("moreGroup")->isVisibleTo(&panel))
      << "a bad knob under More opens it";
  wgrad->setValue(50);
  EXPECT_FALSE(panel.problem());
  auto* backend = panel.findChild<QComboBox*>("backendCombo");
  backend->setCurrentIndex(backend->findData("cpu"));
  panel.findChild<QSpinBox*>("hiddenSpin")->setValue(30);  // 4 heads do not divide 30
  EXPECT_TRUE(panel.findChild<QSpinBox*>("hiddenSpin")->property("invalid").toBool());
  EXPECT_TRUE(panel.findChild<QLabel*>("planError")->text().contains("divisible"));
}

TEST(PlanPanel, ARunsErrorIsShownAtTheKnobItNamesUntilAKnobChanges) {
  PlanPanel panel;
  panel.showRunError("--link-gbps must be positive (got -1)");
  EXPECT_TRUE(panel.findChild<QDoubleSpinBox*>("linkSpin")->property("invalid").toBool());
  EXPECT_FALSE(panel.findChild<QPushButton*>("runButton")->isEnabled());
  panel.findChild<QSpinBox*>("stepsSpin")->setValue(2);
  EXPECT_FALSE(panel.findChild<QLabel*>("planError")->isVisibleTo(&panel));
  EXPECT_TRUE(panel.findChild<QPushButton*>("runButton")->isEnabled());
}

TEST(PlanPanel, TheCheckOnEveryChangeIsQuick) {
  // The 50 ms goal is measured in Release by bench_app_latency (plan_check_ms_worst); the ASan
  // build under a loaded machine takes 35-90 ms. This bound is ten times the goal: what it
  // catches is a check that builds a plan beyond the limits in bulk (seconds here).
  for (const auto& c : test_plans::planCheckCases()) {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {  // the best of three: the check, not the machine's load
      const auto start = std::chrono::steady_clock::now();
      const auto problem = checkRequest(c.request(), "");
      best = std::min(
          best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
      ASSERT_FALSE(problem) << problem->message;
    }
    EXPECT_LT(best, 500) << c.name();
    std::cout << c.name() << ": " << best << " ms\n";
  }
}

TEST(PlanPanel, MessagesNameTheirKnob) {
  EXPECT_EQ(knobNamedIn("zb-h1: needs m >= p (m=2, p=4)"), Knob::Microbatches);
  EXPECT_EQ(knobNamedIn("chimera: needs p even (p=3)"), Knob::Stages);
  EXPECT_EQ(knobNamedIn("--layers: the model has 4 layers, fewer than the plan's 8 stages"),
            Knob::Layers);
  EXPECT_EQ(knobNamedIn("--wgrad-us must be between 0 and --bwd-us (got 5)"), Knob::WgradUs);
  EXPECT_EQ(knobNamedIn("model hidden size 30 is not divisible by 4 heads"), Knob::Hidden);
  EXPECT_EQ(knobNamedIn("no CUDA device (driver missing)"), Knob::Backend);
  EXPECT_EQ(knobNamedIn("rank 2 needs 3 GiB"), Knob::None);
  EXPECT_EQ(knobNamedIn("--dp 2: --microbatches 5 does not share out evenly"), Knob::DataParallel);
  EXPECT_EQ(knobNamedIn("--topology 2x4: 8 devices for 4 ranks (N x G must equal --stages)"),
            Knob::Topology);
  EXPECT_EQ(knobNamedIn("--inter-latency-us -1: expected 0 or more"), Knob::InterGbps);
  EXPECT_EQ(knobNamedIn("--mapping 0,1,1: device 1 is named twice"), Knob::Mapping);
}

// A topology that does not cover the ranks is caught at its own field, under "More".
TEST(PlanPanel, ABadTopologyMarksItsFieldAndTheMappingSearchIsLeftToTheRun) {
  runtime::RunPlanRequest r = test_requests::oddPlacementRequest();
  r.spec.topology = "2x2";
  const auto problem = checkRequest(r, "");
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->knob, Knob::Topology);
  EXPECT_THAT(problem->message, ::testing::HasSubstr("4 devices for 6 ranks"));
  r = test_requests::oddPlacementRequest();
  r.spec.mapping = "auto";
  EXPECT_FALSE(checkRequest(r, "")) << "checked in rank order";
}

// A graph's halo is read off a node a chunk while a knob changes (a million nodes take a
// second); a problem is still named with the real --graph-nodes.
TEST(PlanPanel, GraphNodesAreCheckedOnASmallGraphButNamedAsGiven) {
  runtime::RunPlanRequest r;
  r.backend = runtime::Backend::Sim;
  r.spec.schedule = "1f1b";
  r.spec.stages = 4;
  r.spec.microbatches = 16;
  r.spec.uniform.actMb = 64;
  r.spec.uniform.linkGbps = 100;
  r.spec.graphNodes = 1 << 20;
  EXPECT_FALSE(checkRequest(r, ""));
  r.spec.schedule = "chimera";
  auto problem = checkRequest(r, "");
  ASSERT_TRUE(problem);
  EXPECT_THAT(problem->message, ::testing::HasSubstr("--graph-nodes 1048576: the graph's parts "
                                                     "are --dp replicas, not chimera's"));
  r.spec.schedule = "1f1b";
  r.spec.graphNodes = 1000;
  problem = checkRequest(r, "");
  ASSERT_TRUE(problem);
  EXPECT_THAT(problem->message, ::testing::HasSubstr("--graph-nodes 1000: expected a multiple"));
}

}  // namespace
}  // namespace ps::ui
