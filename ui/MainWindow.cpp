#include "ui/MainWindow.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFontDatabase>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QVBoxLayout>

#include "runtime/plan/PlanBuilder.h"
#include "runtime/sim/SimWriter.h"
#include "runtime/sim/Simulator.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "ui/LegendWidget.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle("PipeScope");
  timeline_ = new TimelineView(this);
  setCentralWidget(timeline_);

  runs_ = new QListWidget(this);
  runs_->setObjectName("runHistory");
  auto* runsDock = new QDockWidget("Run history", this);
  runsDock->setObjectName("runHistoryDock");
  runsDock->setWidget(runs_);
  addDockWidget(Qt::LeftDockWidgetArea, runsDock);
  connect(runs_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0) showRun(runs_->item(row)->data(Qt::UserRole).toLongLong());
  });

  auto* stats = new QWidget(this);
  auto* layout = new QVBoxLayout(stats);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(new LegendWidget(stats));
  report_ = new QPlainTextEdit(stats);
  report_->setObjectName("reportView");
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  report_->setPlaceholderText("Open a trace file (File → Open) to see its report.");
  layout->addWidget(report_);
  auto* statsDock = new QDockWidget("Stats", this);
  statsDock->setObjectName("statsDock");
  statsDock->setWidget(stats);
  addDockWidget(Qt::BottomDockWidgetArea, statsDock);

  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open…", QKeySequence::Open, this, &MainWindow::chooseAndOpen);
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("&Fit timeline", QKeySequence(Qt::Key_F), timeline_, &TimelineView::fit);
  view->addAction(runsDock->toggleViewAction());
  view->addAction(statsDock->toggleViewAction());
  resize(1400, 820);
  QSettings settings;
  restoreGeometry(settings.value("mainWindow/geometry").toByteArray());
  restoreState(settings.value("mainWindow/state").toByteArray());
}

MainWindow::~MainWindow() = default;

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("mainWindow/geometry", saveGeometry());
  settings.setValue("mainWindow/state", saveState());
  QMainWindow::closeEvent(event);
}

void MainWindow::fail(const QString& message, bool dialog) {
  lastError_ = message;
  if (dialog) QMessageBox::critical(this, "PipeScope", message);
}

bool MainWindow::openTrace(const QString& path, bool showErrorDialog) {
  auto store = trace::TraceStore::open(path.toStdString(), trace::TraceStore::Mode::ReadOnly);
  if (!store) {
    fail(QString::fromStdString(store.error()), showErrorDialog);
    return false;
  }
  auto runs = store->listRuns();
  if (!runs || runs->empty()) {
    fail(runs ? path + ": the trace holds no runs" : QString::fromStdString(runs.error()),
         showErrorDialog);
    return false;
  }
  path_ = path;
  const QSignalBlocker block(runs_);
  runs_->clear();
  for (const auto& r : *runs) {
    auto* item = new QListWidgetItem(QString("%1  %2  [%3]")
                                         .arg(r.id)
                                         .arg(QString::fromStdString(r.name))
                                         .arg(QString::fromStdString(r.source)),
                                     runs_);
    item->setData(Qt::UserRole, static_cast<qlonglong>(r.id));
  }
  runs_->setCurrentRow(runs_->count() - 1);
  setWindowTitle(QString("PipeScope — %1").arg(path));
  return showRun(runs->back().id);
}

bool MainWindow::showRun(qint64 id) {
  auto run = trace::loadRunFromFile(path_.toStdString(), id);
  if (!run) {
    fail(QString::fromStdString(run.error()), false);
    return false;
  }
  run_ = std::make_shared<const trace::RunTrace>(std::move(*run));
  timeline_->setRun(run_);
  report_->setPlainText(QString::fromStdString(trace::reportText(trace::analyzeRun(*run_))));
  return true;
}

bool MainWindow::openDemo(const QString& path) {
  runtime::PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.uniform.actMb = 1;  // memory per stage; links stay free, so the bubble is 3/11
  auto built = runtime::buildPlan(spec);
  if (!built) {
    fail(QString::fromStdString(built.error()), true);
    return false;
  }
  auto result = runtime::simulate(built->plan, built->graph, built->cost);
  auto store = trace::TraceStore::open(path.toStdString(), trace::TraceStore::Mode::ReadWrite);
  if (!result || !store) {
    fail(QString::fromStdString(!result ? result.error() : store.error()), true);
    return false;
  }
  auto id = runtime::writeSimulation(*store, built->plan, built->cost, *result,
                                     runtime::planRunName(built->plan), built->configJson);
  if (!id) {
    fail(QString::fromStdString(id.error()), true);
    return false;
  }
  return openTrace(path);
}

void MainWindow::chooseAndOpen() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Open trace", {}, "PipeScope traces (*.sqlite *.db);;All files (*)");
  if (!path.isEmpty()) openTrace(path);
}

}  // namespace ps::ui
