// Issue 34 item 7: an imported run (no plan to rerun) shows in the Plan panel what the import
// knows — its ranks, micro-batches, steps and a recognised schedule — and greys every other knob;
// before, the previous run's knobs (M 8, Layers 8, 10 Gb/s) stayed beside "it has no plan to
// rerun". Showing a planned run again gives every knob back.

#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>

#include <cstdlib>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

// A file with a planned sim run (run 1: 1f1b P 4, M 8, Layers 8, 10 Gb/s) and then an import
// (run 2: a gpipe P 2, M 6, 3 steps, written as if from Kineto with no config to rerun).
std::string plannedThenImported(const test::TempDir& dir, const char* schedule) {
  const std::string path = dir.file("mixed.sqlite");
  runtime::RunPlanRequest planned;
  planned.spec.schedule = "1f1b";
  planned.spec.stages = 4;
  planned.spec.microbatches = 8;
  planned.spec.layers = 8;
  planned.spec.uniform.linkGbps = 10;
  planned.spec.uniform.actMb = 1;
  auto first = runtime::runPlan(planned, {path});
  EXPECT_TRUE(first.ok()) << first.error();
  runtime::RunPlanRequest recorded;
  recorded.spec.schedule = "gpipe";
  recorded.spec.stages = 2;
  recorded.spec.microbatches = 6;
  recorded.spec.steps = 3;
  recorded.write = false;
  auto sim = runtime::runPlan(recorded, {});
  EXPECT_TRUE(sim.ok()) << sim.error();
  trace::TraceBatch batch;
  for (const runtime::SimRecord& r : runtime::allRecords(*sim->sim))
    batch.ops.push_back(runtime::toOpRecord(r));
  trace::RunHeader header = test::simpleHeader(2, "kineto: rank0.json +1");
  header.info.source = "kineto";
  header.info.num_microbatches = 6;
  if (schedule) header.info.schedule = schedule;  // else simpleHeader's "custom"
  header.info.config_json = R"({"import":{"format":"kineto","files":["rank0.json"]}})";
  test::writeRun(path, header, batch);
  return path;
}

// PIPESCOPE_UI_SHOTS=DIR: the window at 1280×720 and 1600×1000, for a look.
void importShots(MainWindow& w, const char* name) {
  const char* dir = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!dir) return;
  for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
    w.resize(size);
    QApplication::processEvents();
    w.grab().save(
        QString("%1/plan-import-%2-%3x%4.png").arg(dir, name).arg(size.width()).arg(size.height()));
  }
  w.resize(1280, 720);
}

struct ImportPanel {
  QComboBox *schedule, *backend;
  QSpinBox *stages, *microbatches, *chunks, *layers, *steps;
  QDoubleSpinBox* link;
  QToolButton* more;
  explicit ImportPanel(const MainWindow& w)
      : schedule(w.findChild<QComboBox*>("scheduleCombo")),
        backend(w.findChild<QComboBox*>("backendCombo")),
        stages(w.findChild<QSpinBox*>("stagesSpin")),
        microbatches(w.findChild<QSpinBox*>("microbatchesSpin")),
        chunks(w.findChild<QSpinBox*>("chunksSpin")),
        layers(w.findChild<QSpinBox*>("layersSpin")),
        steps(w.findChild<QSpinBox*>("stepsSpin")),
        link(w.findChild<QDoubleSpinBox*>("linkSpin")),
        more(w.findChild<QToolButton*>("moreToggle")) {}
};

TEST(PlanPanelImport, ShowsWhatTheImportKnowsAndGreysTheRest) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(plannedThenImported(dir, nullptr)), false))
      << w.lastError().toStdString();
  w.resize(1280, 720);
  w.show();
  // The planned run first, as a user clicks through the history: its knobs must not stay.
  ASSERT_TRUE(w.showRun(1));
  ASSERT_TRUE(w.showRun(2));
  ImportPanel p(w);
  ASSERT_TRUE(p.schedule && p.backend && p.stages && p.microbatches && p.chunks && p.layers &&
              p.steps && p.link && p.more);
  // The import: 2 ranks of one stage each, 6 micro-batches, 3 steps, its schedule "custom" (no
  // generator's).
  EXPECT_EQ(p.stages->value(), 2);
  EXPECT_EQ(p.chunks->value(), 1);
  EXPECT_EQ(p.microbatches->value(), 6);
  EXPECT_EQ(p.steps->value(), 3);
  EXPECT_EQ(p.schedule->currentText().trimmed().toStdString(), "");
  EXPECT_FALSE(p.schedule->isEnabled());
  for (QWidget* unknown :
       std::initializer_list<QWidget*>{p.schedule, p.layers, p.link, p.backend}) {
    EXPECT_FALSE(unknown->isEnabled()) << unknown->objectName().toStdString();
    // A greyed knob's tooltip says why it is grey, not how to set it.
    EXPECT_TRUE(unknown->toolTip().startsWith("Not recorded in this imported run"))
        << unknown->objectName().toStdString() << ": " << unknown->toolTip().toStdString();
  }
  EXPECT_FALSE(p.stages->toolTip().startsWith("Not recorded")) << "the ranks are recorded";
  EXPECT_FALSE(p.more->isEnabled());
  // Never the planned run's numbers, greyed or not.
  EXPECT_NE(p.link->value(), 10.0);
  EXPECT_EQ(p.backend->currentText().toStdString(), "");
  EXPECT_FALSE(w.findChild<QWidget*>("runButton")->isEnabled());
  // The recorded stages show, greyed: no plan whose cut could move.
  EXPECT_FALSE(w.findChild<QWidget*>("stageEditor")->isEnabled());
  EXPECT_FALSE(w.findChild<QWidget*>("stageEditorKeys")->isEnabled());
  importShots(w, "greyed");

  // The planned run again: its knobs, every one enabled.
  ASSERT_TRUE(w.showRun(1));
  EXPECT_EQ(p.stages->value(), 4);
  EXPECT_EQ(p.microbatches->value(), 8);
  EXPECT_EQ(p.layers->value(), 8);
  EXPECT_DOUBLE_EQ(p.link->value(), 10.0);
  EXPECT_EQ(p.schedule->currentData().toString().toStdString(), "1f1b");
  EXPECT_EQ(p.backend->currentText().toStdString(), "sim");
  for (QWidget* knob :
       std::initializer_list<QWidget*>{p.schedule, p.chunks, p.layers, p.link, p.backend, p.more}) {
    EXPECT_TRUE(knob->isEnabled()) << knob->objectName().toStdString();
    EXPECT_FALSE(knob->toolTip().startsWith("Not recorded")) << knob->objectName().toStdString();
  }
  EXPECT_TRUE(p.link->toolTip().contains("gigabits per second")) << "its own tooltip back";
  EXPECT_TRUE(w.findChild<QWidget*>("runButton")->isEnabled());
  EXPECT_TRUE(w.findChild<QWidget*>("stageEditor")->isEnabled());
  importShots(w, "planned-again");
}

TEST(PlanPanelImport, ARecognisedScheduleShowsAndAKnobChangedMakesANewPlan) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(plannedThenImported(dir, "gpipe")), false));
  ImportPanel p(w);
  ASSERT_TRUE(p.schedule && p.layers && p.stages);
  EXPECT_EQ(p.schedule->currentData().toString().toStdString(), "gpipe");
  EXPECT_TRUE(p.schedule->isEnabled());
  EXPECT_FALSE(p.layers->isEnabled());
  EXPECT_FALSE(w.findChild<QWidget*>("stageEditor")->isEnabled());
  // A knob the import knows, changed: a new plan from what the import knows, every knob back.
  p.microbatches->setValue(8);
  EXPECT_TRUE(p.layers->isEnabled());
  EXPECT_TRUE(p.backend->isEnabled());
  p.stages->setValue(3);  // a shape knob: the editor follows it, editable again
  EXPECT_TRUE(w.findChild<QWidget*>("stageEditor")->isEnabled());
  EXPECT_EQ(p.backend->currentText().toStdString(), "sim");
  const runtime::RunPlanRequest r = w.findChild<PlanPanel*>()->request();
  EXPECT_EQ(r.spec.schedule, "gpipe");
  EXPECT_EQ(r.spec.stages.value_or(0), 3);
  EXPECT_EQ(r.spec.microbatches.value_or(0), 8);
  EXPECT_EQ(r.spec.steps, 3);
  EXPECT_FALSE(r.spec.uniform.linkGbps.has_value()) << "not the planned run's 10 Gb/s";
  EXPECT_TRUE(w.findChild<QWidget*>("runButton")->isEnabled());
}

}  // namespace
}  // namespace ps::ui
