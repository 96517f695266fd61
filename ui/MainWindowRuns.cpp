// The main window's runs: the Plan dock (plan panel and stage editor), running what it asks for
// through the one job tracker, staged progress with Cancel, and what a finished or failed run
// shows (a failure at the knob it names, cleared by the next success).

#include <QDockWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QStatusBar>
#include <QVBoxLayout>

#include "runtime/run/RunPlan.h"
#include "trace/store/TraceStore.h"
#include "ui/JobTracker.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"
#include "ui/RunController.h"
#include "ui/RunHistoryPanel.h"
#include "ui/StageEditor.h"

namespace ps::ui {

QWidget* MainWindow::buildPlanDock() {
  auto* box = new QWidget(this);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(4, 4, 4, 4);
  plan_ = new PlanPanel(box);
  layout->addWidget(plan_);
  stageEditor_ = new StageEditor(box);
  layout->addWidget(stageEditor_);
  layout->addStretch(1);
  // Dragging a boundary reruns the shown plan with the new cut; Balance lets the partitioner cut.
  connect(stageEditor_, &StageEditor::boundariesChanged, this, [this](const QString& b) {
    plan_->setBoundaries(b);
    runRequest(plan_->request());
  });
  auto balance = [this] {
    plan_->setBoundaries({});
    runRequest(plan_->request());
  };
  connect(plan_, &PlanPanel::balanceRequested, this, balance);
  connect(stageEditor_, &StageEditor::balanceRequested, this, balance);
  connect(plan_, &PlanPanel::runRequested, this, &MainWindow::runRequest);
  // Fit plan on an imported run (MainWindowFit.cpp) runs in its own background job.
  fitJobs_ = std::make_unique<JobTracker>(this);
  connect(plan_, &PlanPanel::fitRequested, this, &MainWindow::fitShownRun);
  // Scrolls rather than forcing the window taller than a 1280×720 screen.
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName("planScroll");
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // The open "More" section may still be wider than the dock: scroll to Run rather than lose it.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  scroll->setWidget(box);
  scroll->setMinimumWidth(box->sizeHint().width() + 16);
  return scroll;
}

void MainWindow::runRequest(const runtime::RunPlanRequest& request) {
  if (path_.isEmpty() && !openScratchSession()) return;
  plan_->setRunning(true);
  // Knobs of a plan fitted to an import: the run is a what-if of that import.
  if (fitOrigin_ && !request.fittedFrom) {
    runtime::RunPlanRequest whatIf = request;
    whatIf.fittedFrom = fitOrigin_;
    controller_->start(whatIf, path_);
    return;
  }
  controller_->start(request, path_);
}

bool MainWindow::runBusy() const {
  return controller_->busy();
}

void MainWindow::onProgress(const QString& stage, int done, int total) {
  progress_->setVisible(true);
  cancel_->setVisible(controller_->busy());
  progress_->setRange(0, total);
  progress_->setValue(done);
  progress_->setFormat(stage + " %v/%m");
}

void MainWindow::onRunFinished(qint64 id) {
  plan_->setRunning(false);
  cancel_->setVisible(false);
  progress_->setRange(0, 0);  // busy indicator while the run loads
  progress_->setFormat("load");
  progress_->setVisible(true);
  const struct HideProgress {
    QProgressBar* bar;
    ~HideProgress() { bar->setVisible(false); }
  } hide{progress_};
  if (!listRuns(false, id)) return;
  statusBar()->clearMessage();
  // Followed while it trained: the last steps and its status are read, the view kept.
  if (current_ && current_->id() == id && followsLive() && followLive() &&
      current_->trace->info.status != trace::RunStatus::Running) {
    statusBar()->showMessage(QString("run %1 added").arg(id), 5000);
    return;
  }
  if (!showRun(id)) return;
  statusBar()->showMessage(QString("run %1 added").arg(id), 5000);
  compareWithFitOrigin(*current_);
}

void MainWindow::onRunFailed(const QString& message) {
  plan_->setRunning(false);
  progress_->setVisible(false);
  cancel_->setVisible(false);
  lastError_ = message;
  plan_->showRunError(message);
  statusBar()->showMessage(message, 10000);
}

}  // namespace ps::ui

namespace ps::ui {

bool MainWindow::showLoadableRun() {
  const qint64 first = history_->currentRun();
  if (showRun(first)) return true;
  const QString refused = lastError_;
  auto store = trace::TraceStore::open(path_.toStdString(), trace::TraceStore::Mode::ReadOnly);
  if (!store) return false;
  auto runs = store->listRuns();
  if (!runs) return false;
  for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
    if (it->id == first || !showRun(it->id)) continue;
    fail(QString("run %1 not shown: %2; the other runs load").arg(first).arg(refused), false);
    statusBar()->showMessage(lastError_);
    return true;
  }
  fail(refused, false);
  return false;
}

}  // namespace ps::ui
