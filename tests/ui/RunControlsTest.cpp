// Issue 34 items 2, 3 and 15: quitting while a model trains asks first (Keep running / Stop and
// quit) instead of ending the run 'cancelled' a few steps in; after Cancel, Run is available
// again (it stayed disabled with no reason); and the progress bar counts a long run's steps as
// they are written (it read "run 0/1000" while three steps were recorded).

#include <gtest/gtest.h>

#include <QApplication>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTest>
#include <QTimer>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

// Clicks `button` of the question as soon as it is up (polled: exec() shows it); the poll ends
// with `window`.
void answerWith(QWidget& window, const QString& button, bool& asked) {
  auto* timer = new QTimer(&window);
  QObject::connect(timer, &QTimer::timeout, [timer, button, &asked] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box || box->objectName() != "stopTrainingQuestion") return;
    asked = true;
    for (QAbstractButton* b : box->buttons())
      if (b->text() == button) b->click();
    timer->deleteLater();
  });
  timer->start(10);
}

runtime::RunPlanRequest longCpuRun() {
  runtime::RunPlanRequest request = test_window::smallCpuRequest();
  request.spec.steps = 100000;  // far longer than the test: only the answer ends it
  return request;
}

void waitForSteps(const MainWindow& w, int steps) {
  const auto* bar = w.findChild<QProgressBar*>("runProgress");
  for (int i = 0;
       i < 3000 && !(bar->isVisible() && bar->format().startsWith("run") && bar->value() >= steps);
       ++i)
    QTest::qWait(10);
}

TEST(QuitDuringTraining, AsksAndKeepsTheRunOrStopsItAndQuits) {
  test::TempDir dir;
  const std::string path = dir.file("train.sqlite");
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(path)));
  w.runRequest(longCpuRun());
  waitForSteps(w, 3);
  const auto* bar = w.findChild<QProgressBar*>("runProgress");
  ASSERT_GE(bar->value(), 3);
  // One percent of the run is 1000 steps: a bar moving by percent would show 0, then 1000.
  EXPECT_LT(bar->value(), 1000) << "the bar counts steps, not percent";
  ASSERT_TRUE(w.runBusy());

  bool asked = false;
  answerWith(w, "Keep running", asked);
  EXPECT_FALSE(w.close()) << "Keep running keeps the window";
  EXPECT_TRUE(asked);
  EXPECT_TRUE(w.runBusy()) << "and the run";

  asked = false;
  answerWith(w, "Stop and quit", asked);
  EXPECT_TRUE(w.close());
  EXPECT_TRUE(asked);
  test_window::waitForRun(w);
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].status, trace::RunStatus::Cancelled);
}

TEST(QuitDuringTraining, NothingIsAskedWhenNoModelTrains) {
  test::TempDir dir;
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("idle.sqlite"))));
  bool asked = false;
  answerWith(w, "Keep running", asked);
  EXPECT_TRUE(w.close());
  QTest::qWait(30);
  EXPECT_FALSE(asked);
}

TEST(CancelledRun, RunIsAvailableAgainAndNoKnobIsBlamed) {
  test::TempDir dir;
  const std::string path = dir.file("cancel.sqlite");
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(path)));
  auto* run = w.findChild<QPushButton*>("runButton");
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(run->isEnabled());
  w.runRequest(longCpuRun());
  waitForSteps(w, 2);
  EXPECT_FALSE(run->isEnabled()) << "disabled while it trains";
  auto* cancel = w.findChild<QPushButton*>("cancelButton");
  ASSERT_NE(cancel, nullptr);
  ASSERT_TRUE(cancel->isVisible());
  QTest::mouseClick(cancel, Qt::LeftButton);
  test_window::waitForRun(w);
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].status, trace::RunStatus::Cancelled);
  EXPECT_TRUE(run->isEnabled()) << run->toolTip().toStdString();
}

}  // namespace
}  // namespace ps::ui
