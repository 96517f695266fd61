#include "ui/MainWindow.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>

#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "trace/store/RunTail.h"
#include "trace/store/TraceStore.h"
#include "ui/CompareModel.h"
#include "ui/ExplorePanel.h"
#include "ui/JobTracker.h"
#include "ui/LinksPanel.h"
#include "ui/LoadedRun.h"
#include "ui/PlanPanel.h"
#include "ui/RunController.h"
#include "ui/RunHistoryPanel.h"
#include "ui/SessionFiles.h"
#include "ui/StatsPanel.h"
#include "ui/TeachPanel.h"
#include "ui/TimelineArea.h"
#include "ui/TraceFileWatch.h"
#include "ui/import/ImportJob.h"
#include "ui/import/ImportRequest.h"
#include "ui/inspect/OpDetailsPanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle("PipeScope");
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
  area_ = new TimelineArea(this);
  setCentralWidget(area_);

  planDock_ = addDock("Plan", "planDock", buildPlanDock(), Qt::LeftDockWidgetArea);
  history_ = new RunHistoryPanel(this);
  historyDock_ = addDock("Run history", "runHistoryDock", history_, Qt::LeftDockWidgetArea);
  connect(history_, &RunHistoryPanel::selectionChanged, this, &MainWindow::followHistorySelection);

  buildBottomDocks();

  controller_ = new RunController(this);
  connect(controller_, &RunController::finished, this, &MainWindow::onRunFinished);
  connect(controller_, &RunController::failed, this, &MainWindow::onRunFailed);
  connect(controller_, &RunController::progress, this, &MainWindow::onProgress);
  connect(controller_, &RunController::previewed, this, &MainWindow::onRunPreviewed);
  connect(controller_, &RunController::saveBegan, this, &MainWindow::onSaveBegan);
  connect(controller_, &RunController::saved, this, &MainWindow::onSaved);
  connect(controller_, &RunController::saveFailed, this, &MainWindow::onSaveFailed);
  connect(controller_, &RunController::explained, this, &MainWindow::onRunExplained);
  connect(controller_, &RunController::began, this, &MainWindow::onRunBegan);
  importJob_ = new ImportJob(this);
  connect(importJob_, &ImportJob::finished, this, &MainWindow::onImportFinished);
  connect(importJob_, &ImportJob::failed, this, &MainWindow::onImportFailed);
  watch_ = new TraceFileWatch(this);
  connect(watch_, &TraceFileWatch::changed, this, &MainWindow::refreshFromFile);
  progress_ = new QProgressBar(this);
  progress_->setObjectName("runProgress");
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  cancel_ = new QPushButton("Cancel", this);
  cancel_->setObjectName("cancelButton");
  cancel_->setToolTip("Stop the run in progress (it is kept as cancelled)");
  cancel_->setVisible(false);
  connect(cancel_, &QPushButton::clicked, controller_, &RunController::cancel);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  buildMenus();
  buildPapersMenu();
  setAcceptDrops(true);
  fitToScreen();
  QSettings settings;
  if (restoreGeometry(settings.value("mainWindow/geometry").toByteArray()))
    opensMaximized_ = false;  // the user's own size and place win
  restoreState(settings.value("mainWindow/state").toByteArray());
}

MainWindow::~MainWindow() = default;  // here: RunTail and JobTracker are complete

QDockWidget* MainWindow::addDock(const QString& title, const char* name, QWidget* widget,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);
  dock->setWidget(widget);
  addDockWidget(area, dock);
  return dock;
}

// Opens at a size that fits the screen (1400×820 where there is room; 1280×720 and smaller
// screens get the whole available area) and can be made as small as 1024×600.
void MainWindow::fitToScreen() {
  setMinimumSize(640, 400);
  QSize size(1400, 820);
  // The window manager's frame (title bar, borders) comes on top of the size asked for: on a
  // screen without room for both, ask for the screen, less a frame, and open maximised.
  const QSize frame(16, 48);
  if (const QScreen* screen = this->screen()) {
    const QSize available = screen->availableGeometry().size();
    if (available.width() < size.width() + frame.width() ||
        available.height() < size.height() + frame.height()) {
      size = size.boundedTo(available - frame);
      opensMaximized_ = true;
    }
  }
  resize(size);
  resizeDocks({planDock_, historyDock_}, {300, 300}, Qt::Horizontal);
  resizeDocks({planDock_, historyDock_}, {size.height() * 3 / 5, size.height() / 5}, Qt::Vertical);
  resizeDocks({statsDock_}, {size.height() / 4}, Qt::Vertical);
}

TimelineView* MainWindow::timeline() const {
  return area_->timeline();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // Nothing to ask: every run is in a file (the open one or the scratch session) once the saves
  // of runs shown from memory have ended.
  if (controller_->savesPending() > 0) {
    statusBar()->showMessage("saving the last runs to the file…");
    controller_->waitForSaves();
  }
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
  // A profile of another tool opens through Import (it says so instead of "no 'meta' table").
  const QString format = guessImportFormat({path});
  if (const QString what = importFormatNoun(format); !what.isEmpty()) {
    auto probe = trace::TraceStore::open(path.toStdString(), trace::TraceStore::Mode::ReadOnly);
    // A SQLite file of ours that does not open (a newer schema) keeps the store's own message.
    if (!probe && (!importFormatIsSqlite(format) ||
                   probe.error().find("not a PipeScope trace") != std::string::npos)) {
      fail(QString("%1 is %2, not a PipeScope trace: use File → Import traces… to bring it "
                   "into a trace file")
               .arg(path, what),
           false);
      if (showErrorDialog &&
          QMessageBox::question(this, "PipeScope", lastError_ + "\n\nImport it now?") ==
              QMessageBox::Yes)
        chooseAndImport({path});
      return false;
    }
  }
  const QString previous = path_;
  path_ = path;
  if (!listRuns(showErrorDialog)) {
    path_ = previous;
    forgetRecentFile(path);
    rebuildRecentMenu();
    return false;
  }
  // Runs of the previous file still being saved go on being saved there, out of this window.
  if (path_ != previous) {
    tail_.reset();
    unsaved_.clear();
    history_->clearUnsaved();
  }
  setWindowTitle(isScratchSession(path) ? QString("PipeScope — scratch session")
                                        : QString("PipeScope — %1").arg(path));
  rememberRecentFile(path);
  rebuildRecentMenu();
  watch_->setPath(path);
  fileGone_ = false;
  return showLoadableRun();
}

bool MainWindow::listRuns(bool showErrorDialog, qint64 current) {
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
  history_->setRuns(*runs, current);
  return true;
}

bool MainWindow::showRun(qint64 id) {
  auto run = loadRun(id);
  if (!run) {
    fail(QString::fromStdString(run.error()), false);
    return false;
  }
  history_->selectRun(id);
  showLoaded(*run);
  return true;
}

void MainWindow::showLoaded(const std::shared_ptr<const LoadedRun>& run) {
  endComparison();
  area_->showRun(run);
  setCurrentRun(run);
  showKnobsOf(*run);
  // The loader's word on what it left out of the file; every line is in the Stats dock.
  if (const auto& warnings = run->trace->warnings; !warnings.empty())
    statusBar()->showMessage(
        QString::fromStdString(warnings.front()) +
            (warnings.size() > 1 ? QString(" (%1 more in Stats)").arg(warnings.size() - 1)
                                 : QString()),
        15000);
}

void MainWindow::endComparison() {
  compared_.reset();
  compare_->clear();
  compareDock_->hide();
}

// One run selected: it is shown everywhere. Two: the current one (A) everywhere, the other (B)
// in the second timeline and the table. More: the current one, and the status bar says why.
void MainWindow::followHistorySelection() {
  const QList<qint64> selected = history_->selectedRuns();
  if (selected.isEmpty()) return;
  if (selected.size() == 2) {
    compareRuns(selected[0], selected[1]);
    return;
  }
  if (!current_ || current_->id() != selected[0] || area_->comparing()) {
    auto run = loadRun(selected[0]);
    if (!run) return fail(QString::fromStdString(run.error()), false);
    showLoaded(*run);
  }
  if (selected.size() > 2)
    statusBar()->showMessage("select exactly two runs to compare them", 5000);
}

bool MainWindow::compareRuns(qint64 a, qint64 b) {
  auto runA = current_ && current_->id() == a ? Result<std::shared_ptr<const LoadedRun>>(current_)
                                              : loadRun(a);
  auto runB = loadRun(b);
  if (!runA || !runB) {
    fail(QString::fromStdString(!runA ? runA.error() : runB.error()), false);
    return false;
  }
  if (!current_ || current_->id() != a) {
    setCurrentRun(*runA);
    showKnobsOf(*current_);
  }
  compared_ = *runB;
  history_->selectPair(a, b);
  area_->showComparison(current_, compared_);
  compare_->setRuns(current_->analysis, compared_->analysis);
  compareDock_->show();
  compareDock_->raise();
  // A tabified dock shown before the window is laid out raises only once it is: again, later.
  QTimer::singleShot(0, compareDock_, [this] {
    if (compared_) compareDock_->raise();
  });
  return true;
}

bool MainWindow::openDemo(const QString& path) {
  // The demo is the 1f1b preset (resources/presets/1f1b.json), as `pipescope-cli demo`'s.
  const auto request = runtime::presetRequest(runtime::kDemoPreset);
  if (!request) {
    fail(QString::fromStdString(request.error()), true);
    return false;
  }
  // Milliseconds: run here, so that the window opens on it.
  auto result = runtime::runPlan(*request, {path.toStdString()});
  if (!result || result->status != trace::RunStatus::Complete) {
    fail(QString::fromStdString(!result ? result.error() : result->message), true);
    return false;
  }
  result->store.reset();
  return openTrace(path);
}

bool MainWindow::openScratchSession() {
  const QString path = scratchSessionPath();
  if (path.isEmpty()) {
    fail("cannot create the scratch session's folder in the user's data location", true);
    return false;
  }
  if (!QFileInfo::exists(path)) return openDemo(path);
  lastError_.clear();
  if (openTrace(path, false)) {
    // A run the loader refused was skipped with its own message; keep that one on screen.
    if (lastError_.isEmpty())
      statusBar()->showMessage(QString("scratch session reopened: %1 run(s) from earlier (%2)")
                                   .arg(history_->count())
                                   .arg(path),
                               8000);
    return true;
  }
  // It holds the user's runs of earlier sessions (or a newer PipeScope's): never deleted, moved
  // aside under a dated name, and a new session starts.
  const QString why = lastError_;
  // Busy is not unreadable: another writer holds it for now, and it keeps its file.
  if (why.contains("locked by another process")) {
    fail(QString("the scratch session %1 is in use (%2); it was left as it is: open it again once "
                 "the other program is done (File → Open scratch session)")
             .arg(path, why),
         false);
    statusBar()->showMessage(lastError_);
    return false;
  }
  const QString aside = moveAsideUnreadable(path);
  if (aside.isEmpty()) {
    fail(QString("the scratch session %1 does not open (%2) and cannot be moved aside; it was "
                 "left as it is")
             .arg(path, why),
         true);
    return false;
  }
  if (!openDemo(path)) return false;
  // Where the runs went first: a status bar cuts a long message at the window's edge.
  fail(QString("new scratch session started; the old one did not open and was kept as %1 (%2)")
           .arg(aside, why),
       false);
  statusBar()->showMessage(lastError_);
  return true;
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
  if (files.size() == 1 && (format.isEmpty() || importFormatIsSqlite(format)) &&
      openTrace(files.first(), false))
    return;
  if (!format.isEmpty()) chooseAndImport(files);
}

}  // namespace ps::ui
