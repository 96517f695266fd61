#include "ui/MainWindow.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHeaderView>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QSvgGenerator>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextStream>
#include <QVBoxLayout>

#include "runtime/run/RunPlan.h"
#include "trace/analysis/AnalyticBubble.h"
#include "trace/analysis/ConfigJson.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "ui/LegendWidget.h"
#include "ui/LinkMatrixView.h"
#include "ui/LinkTableModel.h"
#include "ui/MemoryView.h"
#include "ui/PlanPanel.h"
#include "ui/RunController.h"
#include "ui/StageEditor.h"
#include "ui/import/ImportDialog.h"
#include "ui/import/ImportJob.h"
#include "ui/import/ImportSummaryDialog.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

namespace {

// The schedule's paper bubble beside the measured one (issue: "the analytic bubble formula
// evaluated next to the measured value"), on the line after "bubble ratio".
std::string withAnalyticBubble(std::string report, const trace::RunInfo& run, int chunks) {
  if (!run.schedule || !run.num_microbatches || run.source == "kineto" || run.source == "nsys")
    return report;
  const auto analytic =
      trace::analyticBubble(*run.schedule, run.num_ranks, *run.num_microbatches, chunks);
  const auto line = report.find("bubble ratio");
  if (!analytic || line == std::string::npos) return report;
  const auto end = report.find('\n', line);
  char text[160];
  std::snprintf(text, sizeof text, "paper bubble   %.2f %%  %s with F = t, B = 2t, free links\n",
                analytic->value * 100.0, analytic->formula.c_str());
  report.insert(end == std::string::npos ? report.size() : end + 1, text);
  return report;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle("PipeScope");
  auto* centre = new QSplitter(Qt::Vertical, this);
  timeline_ = new TimelineView(centre);
  memory_ = new MemoryView(centre);
  compareTimeline_ = new TimelineView(centre);
  compareTimeline_->setObjectName("compareTimelineView");
  compareTimeline_->setVisible(false);
  centre->addWidget(timeline_);
  centre->addWidget(compareTimeline_);
  centre->addWidget(memory_);
  // Compared runs share one time axis: both views show the same range.
  connect(timeline_, &TimelineView::rangeChanged, compareTimeline_, [this](TimeRange r) {
    if (compareTimeline_->isVisible() && compareTimeline_->visibleRange().start != r.start)
      compareTimeline_->setVisibleRange(r);
  });
  centre->setStretchFactor(0, 3);
  centre->setStretchFactor(1, 1);
  setCentralWidget(centre);
  connect(timeline_, &TimelineView::rangeChanged, memory_, &MemoryView::setVisibleRange);

  auto* planBox = new QWidget(this);
  planBox->setMaximumWidth(380);
  auto* planLayout = new QVBoxLayout(planBox);
  planLayout->setContentsMargins(0, 0, 0, 0);
  plan_ = new PlanPanel(planBox);
  planLayout->addWidget(plan_);
  stageEditor_ = new StageEditor(planBox);
  planLayout->addWidget(stageEditor_);
  auto* balance = new QPushButton("Balance stages", planBox);
  balance->setObjectName("balanceButton");
  planLayout->addWidget(balance);
  planLayout->addStretch(1);
  auto* planDock = new QDockWidget("Plan", this);
  planDock->setObjectName("planDock");
  planDock->setWidget(planBox);
  // Dragging a boundary reruns the same plan with the new cut; Balance lets the partitioner cut.
  connect(stageEditor_, &StageEditor::boundariesChanged, this, [this](const QString& b) {
    plan_->setLayers(static_cast<int>(run_ ? run_->layers.size() : 0));
    plan_->setBoundaries(b);
    runRequest(plan_->request());
  });
  connect(balance, &QPushButton::clicked, this, [this] {
    plan_->setLayers(static_cast<int>(run_ ? run_->layers.size() : 0));
    plan_->setBoundaries({});
    runRequest(plan_->request());
  });
  addDockWidget(Qt::LeftDockWidgetArea, planDock);
  controller_ = new RunController(this);
  connect(plan_, &PlanPanel::runRequested, this, &MainWindow::runRequest);
  connect(controller_, &RunController::finished, this, &MainWindow::onRunFinished);
  importJob_ = new ImportJob(this);
  connect(importJob_, &ImportJob::finished, this, &MainWindow::onImportFinished);
  connect(importJob_, &ImportJob::failed, this, &MainWindow::onImportFailed);
  connect(controller_, &RunController::failed, this, &MainWindow::onRunFailed);
  connect(controller_, &RunController::progress, this, &MainWindow::onProgress);
  progress_ = new QProgressBar(this);
  progress_->setObjectName("runProgress");
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  cancel_ = new QPushButton("Cancel", this);
  cancel_->setObjectName("cancelButton");
  cancel_->setVisible(false);
  connect(cancel_, &QPushButton::clicked, controller_, &RunController::cancel);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  runs_ = new QListWidget(this);
  runs_->setObjectName("runHistory");
  runs_->setMaximumWidth(380);
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
  links_ = new LinkTableModel(this);
  auto* linkView = new QTableView(this);
  linkView->setObjectName("linkTable");
  linkView->setModel(links_);
  linkView->horizontalHeader()->setStretchLastSection(true);
  linkView->verticalHeader()->hide();
  linkMatrix_ = new LinkMatrixView(this);
  auto* linkSplit = new QSplitter(Qt::Horizontal, this);
  linkSplit->addWidget(linkMatrix_);
  linkSplit->addWidget(linkView);
  linkSplit->setStretchFactor(1, 1);
  auto* linkDock = new QDockWidget("Links", this);
  linkDock->setObjectName("linkDock");
  linkDock->setWidget(linkSplit);
  addDockWidget(Qt::BottomDockWidgetArea, linkDock);

  compare_ = new CompareModel(this);
  auto* compareView = new QTableView(this);
  compareView->setObjectName("compareTable");
  compareView->setModel(compare_);
  compareView->horizontalHeader()->setStretchLastSection(true);
  compareView->verticalHeader()->hide();
  compareDock_ = new QDockWidget("Compare", this);
  compareDock_->setObjectName("compareDock");
  compareDock_->setWidget(compareView);
  addDockWidget(Qt::BottomDockWidgetArea, compareDock_);
  compareDock_->hide();
  runs_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  connect(runs_, &QListWidget::itemSelectionChanged, this, &MainWindow::compareSelected);

  auto* statsDock = new QDockWidget("Stats", this);
  statsDock->setObjectName("statsDock");
  statsDock->setWidget(stats);
  addDockWidget(Qt::BottomDockWidgetArea, statsDock);
  tabifyDockWidget(statsDock, linkDock);
  tabifyDockWidget(statsDock, compareDock_);
  statsDock->raise();

  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open…", QKeySequence::Open, this, &MainWindow::chooseAndOpen);
  recentMenu_ = file->addMenu("Open &recent");
  rebuildRecentMenu();
  QAction* import = file->addAction("&Import traces…", QKeySequence(Qt::CTRL | Qt::Key_I), this,
                                    [this] { chooseAndImport({}); });
  import->setObjectName("importAction");
  file->addAction("&Save as…", QKeySequence::SaveAs, this, [this] {
    const QString to =
        QFileDialog::getSaveFileName(this, "Save trace", {}, "PipeScope traces (*.sqlite)");
    if (to.isEmpty() || path_.isEmpty()) return;
    QFile::remove(to);
    if (!QFile::copy(path_, to))
      fail(to + ": cannot write the file", true);
    else
      openTrace(to);
  });
  file->addSeparator();
  file->addAction("Export timeline (PNG/SVG)…", this, [this] {
    const QString to =
        QFileDialog::getSaveFileName(this, "Export timeline", {}, "PNG (*.png);;SVG (*.svg)");
    if (!to.isEmpty()) exportTimeline(to);
  });
  file->addAction("Export stats (CSV)…", this, [this] {
    const QString to = QFileDialog::getSaveFileName(this, "Export stats", {}, "CSV (*.csv)");
    if (!to.isEmpty()) exportStatsCsv(to);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("&Fit timeline", QKeySequence(Qt::Key_F), timeline_, &TimelineView::fit);
  QAction* dark = view->addAction("&Dark palette");
  dark->setObjectName("darkPaletteAction");
  dark->setCheckable(true);
  connect(dark, &QAction::toggled, this, [](bool on) {
    // Fusion with a dark palette; the views take their colours from the palette, and the kind
    // colours (Okabe–Ito) stay readable on both.
    QApplication::setStyle("Fusion");
    QPalette p;
    if (on) {
      p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
      p.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
      p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
      p.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2b, 0x2b));
      p.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
      p.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
      p.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
      p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe6));
      p.setColor(QPalette::HighlightedText, Qt::white);
    } else {
      p = QApplication::style()->standardPalette();
    }
    QApplication::setPalette(p);
    QSettings().setValue("darkPalette", on);
  });
  dark->setChecked(QSettings().value("darkPalette", false).toBool());
  view->addAction(planDock->toggleViewAction());
  view->addAction(runsDock->toggleViewAction());
  view->addAction(statsDock->toggleViewAction());
  setAcceptDrops(true);
  resize(1400, 820);
  resizeDocks({planDock, runsDock}, {300, 300}, Qt::Horizontal);
  resizeDocks({statsDock}, {220}, Qt::Vertical);
  centre->setSizes({520, 0, 200});
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
  const QString previous = path_;
  path_ = path;
  if (!listRuns(showErrorDialog)) {
    path_ = previous;
    return false;
  }
  setWindowTitle(QString("PipeScope — %1").arg(path));
  rememberRecent(path);
  return showRun(runs_->item(runs_->count() - 1)->data(Qt::UserRole).toLongLong());
}

bool MainWindow::listRuns(bool showErrorDialog) {
  auto store = trace::TraceStore::open(path_.toStdString(), trace::TraceStore::Mode::ReadOnly);
  if (!store) {
    fail(QString::fromStdString(store.error()), showErrorDialog);
    return false;
  }
  auto runs = store->listRuns();
  if (!runs || runs->empty()) {
    fail(runs ? path_ + ": the trace holds no runs" : QString::fromStdString(runs.error()),
         showErrorDialog);
    return false;
  }
  const QSignalBlocker block(runs_);
  runs_->clear();
  for (const auto& r : *runs) {
    auto* item =
        new QListWidgetItem(QString("%1  %2  [%3, %4]")
                                .arg(r.id)
                                .arg(QString::fromStdString(r.name))
                                .arg(QString::fromStdString(r.source))
                                .arg(QString::fromUtf8(trace::runStatusName(r.status).data())),
                            runs_);
    item->setData(Qt::UserRole, static_cast<qlonglong>(r.id));
  }
  runs_->setCurrentRow(runs_->count() - 1);
  return true;
}

void MainWindow::runRequest(const RunRequest& request) {
  if (path_.isEmpty()) {
    scratch_ = std::make_unique<QTemporaryDir>();
    path_ = scratch_->filePath("runs.sqlite");
  }
  plan_->setRunning(true);
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

void MainWindow::selectInHistory(qint64 id) {
  const QSignalBlocker block(runs_);
  for (int i = 0; i < runs_->count(); ++i)
    if (runs_->item(i)->data(Qt::UserRole).toLongLong() == id) runs_->setCurrentRow(i);
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
  if (!listRuns(false)) return;
  selectInHistory(id);
  showRun(id);
  statusBar()->showMessage(QString("run %1 added").arg(id), 5000);
}

void MainWindow::onRunFailed(const QString& message) {
  plan_->setRunning(false);
  progress_->setVisible(false);
  cancel_->setVisible(false);
  lastError_ = message;
  statusBar()->showMessage(message);
}

bool MainWindow::showRun(qint64 id) {
  auto run = trace::loadRunFromFile(path_.toStdString(), id);
  if (!run) {
    fail(QString::fromStdString(run.error()), false);
    return false;
  }
  run_ = std::make_shared<const trace::RunTrace>(std::move(*run));
  timeline_->setRun(run_);
  memory_->setRun(run_);
  {
    auto analysis = trace::analyzeRun(*run_);
    const auto [first, last] = run_->timeExtent();
    linkMatrix_->setLinks(analysis.links, static_cast<int>(run_->ranks.size()), last - first);
    links_->setAnalysis(std::move(analysis));
  }
  std::vector<double> layerNs;
  for (const auto& l : run_->layers)
    layerNs.push_back(static_cast<double>(l.fwd_ns.value_or(0) + l.bwd_ns.value_or(0)));
  std::vector<int> boundaries;
  int lastStage = 0;
  for (const auto& st : run_->stages)
    if (st.stage > lastStage) {  // one entry per stage (replicas repeat stages)
      boundaries.push_back(st.first_layer);
      lastStage = st.stage;
    }
  stageEditor_->setModel(std::move(layerNs), std::move(boundaries));
  // The plan panel follows the run on screen, so Run reruns what you look at.
  const std::string& config = run_->info.config_json;
  // A model run (cpu, cuda) keeps the plan's knobs in "plan", next to the model's.
  const std::string plan = trace::jsonTopLevelObject(config, "plan").value_or(config);
  if (const auto schedule = trace::jsonTopLevelString(plan, "schedule"))
    plan_->showKnobs(*schedule,
                     static_cast<int>(trace::jsonTopLevelInt(plan, "stages").value_or(4)),
                     static_cast<int>(trace::jsonTopLevelInt(plan, "microbatches").value_or(8)),
                     static_cast<int>(trace::jsonTopLevelInt(plan, "chunks").value_or(1)),
                     static_cast<int>(trace::jsonTopLevelInt(plan, "layers").value_or(0)),
                     static_cast<int>(trace::jsonTopLevelInt(plan, "steps").value_or(1)));
  memory_->setVisibleRange(timeline_->visibleRange());
  report_->setPlainText(QString::fromStdString(
      withAnalyticBubble(trace::reportText(trace::analyzeRun(*run_)), run_->info,
                         static_cast<int>(trace::jsonTopLevelInt(plan, "chunks").value_or(1)))));
  return true;
}

bool MainWindow::openDemo(const QString& path) {
  runtime::RunPlanRequest request;
  request.spec.schedule = "1f1b";
  request.spec.stages = 4;
  request.spec.microbatches = 8;
  request.spec.uniform.actMb = 1;  // memory per stage; links stay free, so the bubble is 3/11
  request.backend = runtime::Backend::Sim;
  // Milliseconds: run here, so that the window opens on it.
  auto result = runtime::runPlan(request, {path.toStdString()});
  if (!result || result->status != trace::RunStatus::Complete) {
    fail(QString::fromStdString(!result ? result.error() : result->message), true);
    return false;
  }
  result->store.reset();
  return openTrace(path);
}

void MainWindow::compareSelected() {
  const auto selected = runs_->selectedItems();
  if (selected.size() != 2) {
    compareTimeline_->setVisible(false);
    return;
  }
  compareRuns(selected[0]->data(Qt::UserRole).toLongLong(),
              selected[1]->data(Qt::UserRole).toLongLong());
}

bool MainWindow::compareRuns(qint64 a, qint64 b) {
  auto runA = trace::loadRunFromFile(path_.toStdString(), std::min(a, b));
  auto runB = trace::loadRunFromFile(path_.toStdString(), std::max(a, b));
  if (!runA || !runB) {
    fail(QString::fromStdString(!runA ? runA.error() : runB.error()), false);
    return false;
  }
  compare_->setRuns(trace::analyzeRun(*runA), trace::analyzeRun(*runB));
  run_ = std::make_shared<const trace::RunTrace>(std::move(*runA));
  timeline_->setRun(run_);
  compareTimeline_->setRun(std::make_shared<const trace::RunTrace>(std::move(*runB)));
  // One axis for both: the union of their extents.
  const TimeRange r{
      std::min(timeline_->visibleRange().start, compareTimeline_->visibleRange().start),
      std::max(timeline_->visibleRange().end, compareTimeline_->visibleRange().end)};
  timeline_->setVisibleRange(r);
  compareTimeline_->setVisibleRange(r);
  compareTimeline_->setVisible(true);
  compareDock_->show();
  compareDock_->raise();
  return true;
}

void MainWindow::rememberRecent(const QString& path) {
  if (scratch_ && path.startsWith(scratch_->path())) return;
  QSettings settings;
  QStringList recent = settings.value("recentFiles").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 8)
    recent.removeLast();
  settings.setValue("recentFiles", recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& path : QSettings().value("recentFiles").toStringList())
    recentMenu_->addAction(path, this, [this, path] { openTrace(path); });
  recentMenu_->setEnabled(!recentMenu_->isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList files;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) files << url.toLocalFile();
  if (files.isEmpty()) return;
  // A PipeScope trace opens; profiles of other tools go through the import dialog.
  const QString format = guessImportFormat(files);
  if (files.size() == 1 && format != "kineto" && format != "torch-csv" &&
      openTrace(files.first(), format != "nsys"))
    return;
  if (!format.isEmpty()) chooseAndImport(files);
}

bool MainWindow::exportTimeline(const QString& path) {
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(timeline_->size());
    svg.setViewBox(timeline_->rect());
    svg.setTitle("PipeScope timeline");
    timeline_->render(&svg);
    if (!QFile::exists(path)) {
      fail(path + ": cannot write the SVG", true);
      return false;
    }
    return true;
  }
  if (!timeline_->grab().save(path)) {
    fail(path + ": cannot write the image", true);
    return false;
  }
  return true;
}

bool MainWindow::exportStatsCsv(const QString& path) {
  if (!run_) return false;
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    fail(path + ": " + f.errorString(), true);
    return false;
  }
  const auto a = trace::analyzeRun(*run_);
  QTextStream out(&f);
  out << "rank,busy_ns,bubble_ratio,peak_memory_bytes\n";
  for (const auto& r : a.ranks)
    out << r.rank << ',' << r.busy_ns << ','
        << (r.bubble_ratio ? QString::number(*r.bubble_ratio, 'g', 10) : "") << ','
        << (r.peak_memory_bytes ? QString::number(*r.peak_memory_bytes) : "") << '\n';
  out << "total," << (a.step_time_ns ? QString::number(*a.step_time_ns) : "") << ','
      << (a.bubble_ratio ? QString::number(*a.bubble_ratio, 'g', 10) : "") << ",\n";
  return true;
}

void MainWindow::chooseAndOpen() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Open trace", {}, "PipeScope traces (*.sqlite *.db);;All files (*)");
  if (!path.isEmpty()) openTrace(path);
}

}  // namespace ps::ui
