// The plan panel (issue 11, defects 2, 7–10): what it shows is what reruns, bad knobs are shown at
// the knob before Run, Rerun on change makes one run per burst of changes, and every knob says
// what it means.

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

#include "runtime/run/ModelRun.h"
#include "runtime/run/RunConfig.h"
#include "tests/common/TestUtil.h"
#include "ui/DarkPalette.h"
#include "ui/PlanPanel.h"
#include "ui/PlanPanelTips.h"
#include "ui/RunController.h"

namespace ps::ui {
namespace {

// What a request reruns, as text: the plan's config_json, and for cpu/cuda the model run's.
std::string configOf(const runtime::RunPlanRequest& r) {
  auto built = runtime::buildPlan(r.spec);
  EXPECT_TRUE(built) << built.error();
  if (!built) return {};
  if (!runtime::trainsModel(r.backend)) return built->configJson;
  return runtime::modelRunConfigJson(built->configJson, r.backend, r.exec);
}

// Every plan and cost knob away from its default, values the spin boxes cannot show exactly.
runtime::RunPlanRequest oddSimRequest() {
  runtime::RunPlanRequest r;
  r.spec.schedule = "interleaved-1f1b";
  r.spec.stages = 4;
  r.spec.microbatches = 8;
  r.spec.chunks = 2;
  r.spec.layers = 16;
  r.spec.boundaries = "1,3,5,7,9,11,13";
  r.spec.steps = 3;
  r.spec.optimizerSync = runtime::OptimizerSync::None;
  r.spec.recompute = true;
  r.spec.uniform.fwdUs = 123.4567;
  r.spec.uniform.bwdUs = 234.56789;
  r.spec.uniform.wgradUs = 45.55555;
  r.spec.uniform.actMb = 2.3456789;
  r.spec.uniform.paramMb = 0.75;  // not on screen: kept
  r.spec.uniform.linkGbps = 12.3456;
  r.spec.uniform.linkLatencyUs = 7.123;
  return r;
}

runtime::RunPlanRequest oddCpuRequest() {
  runtime::RunPlanRequest r;
  r.backend = runtime::Backend::Cpu;
  r.spec.schedule = "gpipe";
  r.spec.stages = 2;
  r.spec.microbatches = 3;
  r.spec.layers = 6;
  r.spec.uniform.linkGbps = 5.5;
  r.exec.model.block = runtime::BlockType::Mlp;
  r.exec.model.hidden = 24;
  r.exec.model.heads = 3;
  r.exec.model.seq = 5;
  r.exec.model.microbatchSize = 3;
  r.exec.model.seed = 1234567;
  r.exec.optimizer.kind = runtime::OptimizerKind::Sgd;
  r.exec.optimizer.lr = 0.0123f;
  r.exec.optimizer.momentum = 0.5f;
  r.exec.linkGbps = 5.5;
  r.exec.linkLatencyUs = 3.25;
  return r;
}

TEST(PlanPanel, ShowRequestThenRequestRerunsEveryKnobByteForByte) {
  for (const auto& shown : {oddSimRequest(), oddCpuRequest()}) {
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
  for (const auto& original : {oddSimRequest(), oddCpuRequest()}) {
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

TEST(PlanPanel, FourUpPressesWithRerunOnChangeMakeOneRun) {
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
    QTest::qWait(50);  // quicker than the delay: still one burst
  }
  EXPECT_EQ(m->value(), 12);
  EXPECT_EQ(runs.count(), 0);
  QTest::qWait(PlanPanel::kRerunDelayMs + 200);
  ASSERT_EQ(runs.count(), 1);
  EXPECT_EQ(runs[0][0].value<runtime::RunPlanRequest>().spec.microbatches, 12);
  QTest::qWait(PlanPanel::kRerunDelayMs + 100);
  EXPECT_EQ(runs.count(), 1);
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
  QTest::qWait(PlanPanel::kRerunDelayMs + 150);
  EXPECT_EQ(runs.count(), 0) << "an invalid plan is not rerun";
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
  // Plans at the full-check limits (P·V·M = kFullCheckLimit; 16 stages of 350 layers to
  // partition), and larger ones (cheap checks only): each well under the 50 ms a GUI may freeze.
  struct Case {
    const char* schedule;
    int p, v, m, layers;
  };
  const int m = static_cast<int>(kFullCheckLimit / 8);
  const std::vector<Case> cases = {{"1f1b", 8, 1, m, 0},     {"interleaved-1f1b", 4, 2, m, 0},
                                   {"zb-h1", 8, 1, m, 0},    {"zb-v", 4, 2, m, 0},
                                   {"1f1b", 16, 1, 64, 350},  // 16 · 350² ≈ kPartitionLimit
                                   {"1f1b", 8, 1, m, 4096},  // partition too large: left to the run
                                   {"1f1b", 128, 1, 4096, 0}};  // plan too large: left to the run
  for (const Case& c : cases) {
    runtime::RunPlanRequest r;
    r.spec.schedule = c.schedule;
    r.spec.stages = c.p;
    r.spec.chunks = c.v;
    r.spec.microbatches = c.m;
    if (c.layers) r.spec.layers = c.layers;
    r.spec.steps = 100;
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {  // the best of three: the check, not the machine's load
      const auto start = std::chrono::steady_clock::now();
      const auto problem = checkRequest(r, "");
      best = std::min(
          best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
      ASSERT_FALSE(problem) << problem->message;
    }
    EXPECT_LT(best, 50) << c.schedule << " p=" << c.p << " m=" << c.m;
    std::cout << c.schedule << " p=" << c.p << " v=" << c.v << " m=" << c.m << " layers "
              << c.layers << ": " << best << " ms\n";
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
}

TEST(PlanPanel, EveryKnobHasATooltip) {
  PlanPanel panel;
  int knobs = 0;
  for (QWidget* w : panel.findChildren<QWidget*>()) {
    const bool knob = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
                      qobject_cast<QAbstractButton*>(w);
    if (!knob) continue;
    ++knobs;
    EXPECT_FALSE(w->toolTip().isEmpty()) << w->objectName().toStdString();
  }
  EXPECT_GE(knobs, 20);
  EXPECT_TRUE(panel.findChild<QSpinBox*>("layersSpin")->toolTip().contains("P·V"));
  EXPECT_TRUE(panel.findChild<QDoubleSpinBox*>("linkSpin")->toolTip().contains("free"));
}

TEST(PlanPanel, LayersAtPVSayBoundariesCannotMoveAndBalanceIsOff) {
  PlanPanel panel;
  auto* hint = panel.findChild<QLabel*>("layersHint");
  auto* balance = panel.findChild<QPushButton*>("balanceButton");
  ASSERT_TRUE(hint && balance);
  EXPECT_TRUE(hint->isVisibleTo(&panel));
  EXPECT_FALSE(balance->isEnabled());
  EXPECT_EQ(balance->toolTip().toStdString(), tips::kBalanceFixed);
  panel.findChild<QSpinBox*>("layersSpin")->setValue(8);
  EXPECT_FALSE(hint->isVisibleTo(&panel));
  EXPECT_TRUE(balance->isEnabled());
  QSignalSpy balanced(&panel, &PlanPanel::balanceRequested);
  panel.setBoundaries("3,4,6");
  QTest::mouseClick(balance, Qt::LeftButton);
  EXPECT_EQ(balanced.count(), 1);
  EXPECT_EQ(panel.request().spec.boundaries, "") << "Balance lets the partitioner cut";
  // Layers set to P·V by hand is the same trap.
  panel.findChild<QSpinBox*>("layersSpin")->setValue(4);
  EXPECT_TRUE(hint->isVisibleTo(&panel));
  EXPECT_FALSE(balance->isEnabled());
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

TEST(PlanPanel, TheOldCallersStillWork) {
  // RunRequest and showKnobs, kept until MainWindow takes the full request.
  RunRequest old;
  old.backend = "cpu";
  old.model = "mlp";
  old.hidden = 16;
  old.spec.stages = 2;
  const auto job = old.job();
  ASSERT_TRUE(job);
  EXPECT_EQ(job->backend, runtime::Backend::Cpu);
  EXPECT_EQ(job->exec.model.block, runtime::BlockType::Mlp);
  EXPECT_EQ(job->exec.model.hidden, 16);
  EXPECT_EQ(job->exec.optimizer.kind, runtime::OptimizerKind::Adam);
  EXPECT_EQ(configOf(*RunRequest(oddCpuRequest()).job()), configOf(oddCpuRequest()));
  PlanPanel panel;
  panel.showRequest(oddSimRequest());
  panel.showKnobs("1f1b", 2, 4, 1, 0, 1);
  const auto r = panel.request();
  EXPECT_EQ(r.spec.schedule, "1f1b");
  EXPECT_EQ(r.spec.stages, 2);
  EXPECT_FALSE(r.spec.layers);
  EXPECT_EQ(r.spec.uniform.linkGbps, 12.3456) << "the knobs showKnobs does not name are kept";
}

TEST(RunController, ANewRequestSupersedesTheOneInFlight) {
  test::TempDir dir;
  const QString path = QString::fromStdString(dir.file("runs.sqlite"));
  RunController controller;
  QSignalSpy finished(&controller, &RunController::finished);
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
  EXPECT_EQ(finished.count(), 1) << "only the newest request reports";
  EXPECT_EQ(failed.count(), 0);
}

// WCAG contrast ratio of two colours.
double contrast(const QColor& a, const QColor& b) {
  auto luminance = [](const QColor& c) {
    auto channel = [](double v) {
      return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
  };
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

TEST(DarkPalette, DisabledLooksDisabledAndPlaceholdersAreReadable) {
  const QPalette p = darkPalette();
  // Disabled text is clearly dimmer than enabled text, on buttons and in fields.
  for (auto role : {QPalette::ButtonText, QPalette::WindowText, QPalette::Text})
    EXPECT_GT(contrast(p.color(QPalette::Active, role), p.color(QPalette::Button)),
              1.8 * contrast(p.color(QPalette::Disabled, role), p.color(QPalette::Button)))
        << role;
  EXPECT_NE(p.color(QPalette::Disabled, QPalette::Button),
            p.color(QPalette::Active, QPalette::Button));
  // Placeholder text: readable on the field (WCAG AA for text, 4.5:1), dimmer than text.
  EXPECT_GE(contrast(p.color(QPalette::Active, QPalette::PlaceholderText),
                     p.color(QPalette::Active, QPalette::Base)),
            4.5);
  EXPECT_LT(contrast(p.color(QPalette::Active, QPalette::PlaceholderText),
                     p.color(QPalette::Active, QPalette::Base)),
            contrast(p.color(QPalette::Active, QPalette::Text),
                     p.color(QPalette::Active, QPalette::Base)));
}

// PIPESCOPE_UI_SHOTS=DIR: the panel as a dock holds it, light and dark, More shut and open.
TEST(PlanPanel, FitsTheDockWithMoreCollapsed) {
  QWidget dock;
  dock.setFixedWidth(300);
  auto* layout = new QVBoxLayout(&dock);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* panel = new PlanPanel(&dock);
  layout->addWidget(panel);
  layout->addStretch(1);
  dock.show();
  EXPECT_LE(panel->sizeHint().height(), 420);
  EXPECT_LE(panel->minimumSizeHint().width(), 300);
  auto* toggle = panel->findChild<QToolButton*>("moreToggle");
  auto* more = panel->findChild<QWidget*>("moreGroup");
  ASSERT_TRUE(toggle && more);
  EXPECT_FALSE(more->isVisible());
  QTest::mouseClick(toggle, Qt::LeftButton);
  EXPECT_TRUE(more->isVisible());
  QTest::mouseClick(toggle, Qt::LeftButton);
  EXPECT_FALSE(more->isVisible());
  // cpu and cuda add the model's two rows.
  auto* backend = panel->findChild<QComboBox*>("backendCombo");
  backend->setCurrentIndex(backend->findData("cpu"));
  EXPECT_LE(panel->sizeHint().height(), 480);
  std::cout << "plan panel height, More collapsed: cpu " << panel->sizeHint().height();
  backend->setCurrentIndex(backend->findData("sim"));
  std::cout << ", sim " << panel->sizeHint().height() << " px; width " << panel->sizeHint().width()
            << " px\n";
  const char* shots = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!shots) return;
  const QPalette light = QApplication::palette();
  for (const bool dark : {false, true}) {
    QApplication::setPalette(dark ? darkPalette() : light);
    for (const bool open : {false, true}) {
      panel->setMoreOpen(open);
      panel->findChild<QSpinBox*>("microbatchesSpin")->setValue(open ? 2 : 8);
      panel->findChild<QComboBox*>("scheduleCombo")
          ->setCurrentIndex(panel->findChild<QComboBox*>("scheduleCombo")->findData("zb-h1"));
      dock.adjustSize();
      dock.resize(300, layout->sizeHint().height());
      QApplication::processEvents();
      dock.grab().save(QString("%1/plan-panel-%2-%3.png")
                           .arg(shots, dark ? "dark" : "light", open ? "more" : "collapsed"));
    }
  }
  // A cpu run's knobs, and an imported torch CSV offered as a simulation.
  QApplication::setPalette(light);
  panel->setMoreOpen(false);
  panel->showRequest(oddCpuRequest());
  panel->setNotRerunnable("run was imported from a torch CSV", oddSimRequest());
  dock.resize(300, layout->sizeHint().height());
  QApplication::processEvents();
  dock.grab().save(QString("%1/plan-panel-light-cpu-imported.png").arg(shots));
}

}  // namespace
}  // namespace ps::ui
