// The plan panel (issue 11, defect 2): what it shows is what reruns, every knob of a run's
// request, byte for byte; an imported run says it cannot be rerun; the old callers still work.

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
#include "tests/ui/PlanPanelRequests.h"
#include "ui/DarkPalette.h"
#include "ui/PlanPanel.h"
#include "ui/PlanPanelTips.h"
#include "ui/RunController.h"

namespace ps::ui {
namespace {

using test_requests::configOf;
using test_requests::oddCpuRequest;
using test_requests::oddPlacementRequest;
using test_requests::oddSimRequest;

TEST(PlanPanel, ShowRequestThenRequestRerunsEveryKnobByteForByte) {
  for (const auto& shown : {oddSimRequest(), oddCpuRequest(), oddPlacementRequest()}) {
    PlanPanel panel;
    panel.showRequest(shown);
    const runtime::RunPlanRequest back = panel.request();
    EXPECT_EQ(back.backend, shown.backend);
    EXPECT_EQ(configOf(back), configOf(shown));
    EXPECT_EQ(back.spec.uniform.paramMb, shown.spec.uniform.paramMb);
    if (runtime::trainsModel(shown.backend)) {
      EXPECT_EQ(back.exec.linkGbps, shown.exec.linkGbps);
      EXPECT_EQ(back.exec.linkLatencyUs, shown.exec.linkLatencyUs);
    }
    EXPECT_FALSE(panel.problem()) << panel.problem()->message;
  }
}

TEST(PlanPanel, ARunsConfigShownInThePanelRerunsThatConfig) {
  // The app's path: a run's config_json → requestFromConfigJson → the panel → Run.
  for (const auto& original : {oddSimRequest(), oddCpuRequest(), oddPlacementRequest()}) {
    const std::string config = configOf(original);
    auto request = runtime::requestFromConfigJson(config);
    ASSERT_TRUE(request) << request.error();
    PlanPanel panel;
    panel.showRequest(*request);
    EXPECT_EQ(configOf(panel.request()), config);
  }
}

TEST(PlanPanel, ATorchCsvRunRerunsItsScheduleFile) {
  test::TempDir dir;
  const std::string csv = dir.file("gpipe.csv");
  test::writeFile(csv, "0F0,0F1,0B0,0B1\n,1F0,1B0,1F1,1B1\n");
  runtime::RunPlanRequest original;
  original.spec.scheduleFile = csv;
  original.spec.uniform.linkGbps = 25;
  const std::string config = configOf(original);
  auto request = runtime::requestFromConfigJson(config);
  ASSERT_TRUE(request) << request.error();
  PlanPanel panel;
  panel.showRequest(*request);
  EXPECT_EQ(configOf(panel.request()), config);
  // The CSV fixes the shape: those knobs are off, and the notice says where the schedule is from.
  EXPECT_FALSE(panel.findChild<QSpinBox*>("stagesSpin")->isEnabled());
  EXPECT_EQ(panel.findChild<QComboBox*>("scheduleCombo")->currentIndex(), -1);
  auto* notice = panel.findChild<QLabel*>("planNotice");
  EXPECT_TRUE(notice->isVisibleTo(&panel));
  EXPECT_TRUE(notice->text().contains("gpipe.csv"));
  EXPECT_TRUE(panel.findChild<QPushButton*>("runButton")->isEnabled());
}

TEST(PlanPanel, TheKnobsShowTheRequestAndAChangedKnobIsWhatChanges) {
  PlanPanel panel;
  panel.showRequest(oddSimRequest());
  EXPECT_EQ(panel.findChild<QSpinBox*>("chunksSpin")->value(), 2);
  EXPECT_EQ(panel.findChild<QSpinBox*>("layersSpin")->value(), 16);
  EXPECT_NEAR(panel.findChild<QDoubleSpinBox*>("linkSpin")->value(), 12.35, 1e-9);
  EXPECT_NEAR(panel.findChild<QDoubleSpinBox*>("latencySpin")->value(), 7.12, 1e-9);
  EXPECT_TRUE(panel.findChild<QCheckBox*>("recomputeCheck")->isChecked());
  EXPECT_EQ(panel.findChild<QComboBox*>("optimizerSyncCombo")->currentText(), "none");
  panel.findChild<QDoubleSpinBox*>("linkSpin")->setValue(10);
  panel.findChild<QSpinBox*>("microbatchesSpin")->setValue(12);
  const auto r = panel.request();
  EXPECT_EQ(r.spec.uniform.linkGbps, 10.0);
  EXPECT_EQ(r.spec.microbatches, 12);
  EXPECT_EQ(r.spec.uniform.fwdUs, 123.4567);        // untouched: exact
  EXPECT_EQ(r.spec.boundaries, "1,3,5,7,9,11,13");  // M moves no boundary
  EXPECT_EQ(r.backend, runtime::Backend::Sim);
  // A shape knob does: the partitioner cuts again.
  panel.findChild<QSpinBox*>("layersSpin")->setValue(24);
  EXPECT_EQ(panel.request().spec.boundaries, "");
  EXPECT_EQ(panel.request().spec.layers, 24);
}

TEST(PlanPanel, AnImportedRunIsNotRerunnableUntilAnotherIsShown) {
  PlanPanel panel;
  auto* run = panel.findChild<QPushButton*>("runButton");
  auto* notice = panel.findChild<QLabel*>("planNotice");
  auto* simulate = panel.findChild<QPushButton*>("simulateButton");
  ASSERT_TRUE(run && notice && simulate);
  panel.setNotRerunnable("run was imported from nsys: it has no plan to rerun");
  EXPECT_FALSE(run->isEnabled());
  EXPECT_TRUE(notice->isVisibleTo(&panel));
  EXPECT_TRUE(notice->text().contains("nsys"));
  EXPECT_FALSE(simulate->isVisibleTo(&panel));
  panel.showRequest(oddSimRequest());
  EXPECT_TRUE(run->isEnabled());
  EXPECT_FALSE(notice->isVisibleTo(&panel));
  // A torch CSV: offered as a simulation of its schedule.
  runtime::RunPlanRequest sim;
  sim.spec.schedule = "gpipe";
  sim.spec.stages = 2;
  sim.spec.microbatches = 2;
  panel.setNotRerunnable("a torch CSV", sim);
  ASSERT_TRUE(simulate->isVisibleTo(&panel));
  QSignalSpy runs(&panel, &PlanPanel::runRequested);
  QTest::mouseClick(simulate, Qt::LeftButton);
  ASSERT_EQ(runs.count(), 1);
  EXPECT_EQ(configOf(runs[0][0].value<runtime::RunPlanRequest>()), configOf(sim));
  EXPECT_TRUE(run->isEnabled());
}

TEST(RunController, ANewRequestSupersedesTheOneInFlight) {
  test::TempDir dir;
  const QString path = QString::fromStdString(dir.file("runs.sqlite"));
  RunController controller;
  QSignalSpy previewed(&controller, &RunController::previewed);
  QSignalSpy saved(&controller, &RunController::saved);
  QSignalSpy failed(&controller, &RunController::failed);
  runtime::RunPlanRequest first;
  first.spec.stages = 8;
  first.spec.microbatches = 64;
  first.spec.steps = 20;
  runtime::RunPlanRequest second;
  second.spec.stages = 2;
  second.spec.microbatches = 2;
  controller.start(first, path);
  controller.start(second, path);
  for (int i = 0; i < 3000 && controller.busy(); ++i)
    QTest::qWait(10);
  ASSERT_FALSE(controller.busy());
  EXPECT_EQ(previewed.count(), 1) << "only the newest request reports";
  EXPECT_EQ(failed.count(), 0);
  controller.waitForSaves();
  QTest::qWait(20);  // the saved signal is queued to this thread
  ASSERT_EQ(saved.count(), 1);
  // The superseded run never reached the window, so it was never written.
  const auto runs = test::runsIn(path.toStdString());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, saved[0][0].toLongLong());
  EXPECT_EQ(runs[0].num_microbatches, 2);
}

}  // namespace
}  // namespace ps::ui
