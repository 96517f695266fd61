#include "ui/MainWindow.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>

#include "ui/FirstStartLayout.h"
#include "ui/LoadedRun.h"
#include "ui/PlanDock.h"
#include "ui/RunController.h"
#include "ui/RunHistoryPanel.h"
#include "ui/RunLibrary.h"
#include "ui/RunProgress.h"
#include "ui/RunSession.h"
#include "ui/ScratchSession.h"
#include "ui/SessionFiles.h"
#include "ui/TimelineArea.h"
#include "ui/import/ImportController.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle("PipeScope");
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
  area_ = new TimelineArea(this);
  setCentralWidget(area_);

  history_ = new RunHistoryPanel(this);
  library_ = new RunLibrary(history_, this);
  plan_ = new PlanDock(*library_, this);
  planDock_ = addDock("Plan", "planDock", plan_, Qt::LeftDockWidgetArea);
  historyDock_ = addDock("Run history", "runHistoryDock", history_, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);  // Plan and history: full height
  buildBottomDocks();

  controller_ = new RunController(this);
  auto* progress = new RunProgress(statusBar(), controller_);
  session_ =
      new RunSession({this, area_, history_, compare_, compareDock_, statusBar(), progress, plan_},
                     library_, controller_, this);
  connect(session_, &RunSession::currentRunChanged, this, &MainWindow::currentRunChanged);
  connect(session_, &RunSession::fileOpened, this, [this](const QString& path) {
    setWindowTitle(isScratchSession(path) ? QString("PipeScope — scratch session")
                                          : QString("PipeScope — %1").arg(path));
    rememberRecentFile(path);
    rebuildRecentMenu();
  });
  connect(session_, &RunSession::fileRefused, this, [this](const QString& path) {
    forgetRecentFile(path);
    rebuildRecentMenu();
  });
  importer_ = new ImportController(this);
  connect(session_, &RunSession::importAsked, this,
          [this](const QString& path) { importer_->choose({path}, currentFile()); });
  connect(importer_, &ImportController::imported, this, [this](qint64 id, const QString& summary) {
    if (session_->showImported(id)) importer_->showSummary(summary);
  });
  connect(importer_, &ImportController::failed, this, &MainWindow::fail);
  connect(importer_, &ImportController::status, this,
          [this](const QString& text) { statusBar()->showMessage(text); });

  buildMenus();
  buildPapersMenu();
  setAcceptDrops(true);
  fitToScreen();
  QSettings settings;
  if (restoreGeometry(settings.value("mainWindow/geometry").toByteArray()))
    opensMaximized_ = false;  // the user's own size and place win
  if (!restoreState(settings.value("mainWindow/state").toByteArray()))
    new FirstStartLayout(this, planDock_, historyDock_, statsDock_);
}

MainWindow::~MainWindow() = default;

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
}

TimelineView* MainWindow::timeline() const {
  return area_->timeline();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (controller_->training()) {
    if (!askToStopTrainingAndQuit(this, *controller_)) {
      event->ignore();
      return;
    }
    controller_->cancel();  // the run ends 'cancelled' as the worker is joined
  }
  // Nothing else to ask: every run is in a file (the open one or the scratch session) once the
  // saves of runs shown from memory have ended.
  if (controller_->savesPending() > 0) {
    statusBar()->showMessage("saving the last runs to the file…");
    controller_->waitForSaves();
  }
  // A window never shown has no layout of the user's: its docks' sizes were never laid out.
  if (isVisible()) {
    QSettings settings;
    settings.setValue("mainWindow/geometry", saveGeometry());
    settings.setValue("mainWindow/state", saveState());
  }
  QMainWindow::closeEvent(event);
}

void MainWindow::fail(const QString& message, bool dialog) {
  session_->fail(message, dialog);
}

QString MainWindow::lastError() const {
  return session_->lastError();
}

QString MainWindow::currentFile() const {
  return session_->file();
}

bool MainWindow::openTrace(const QString& path, bool showErrorDialog) {
  return session_->open(path, showErrorDialog);
}

bool MainWindow::showRun(qint64 id) {
  return session_->showRun(id);
}

bool MainWindow::compareRuns(qint64 a, qint64 b) {
  return session_->compareRuns(a, b);
}

bool MainWindow::openDemo(const QString& path) {
  return session_->scratch().openDemo(path);
}

bool MainWindow::openScratchSession() {
  return session_->scratch().open();
}

bool MainWindow::saveTraceAs(const QString& to, bool showErrorDialog) {
  return session_->saveAs(to, showErrorDialog);
}

void MainWindow::runRequest(const runtime::RunPlanRequest& request) {
  session_->run(request);
}

bool MainWindow::runBusy() const {
  return controller_->busy();
}

int MainWindow::savesPending() const {
  return controller_->savesPending();
}

int MainWindow::explanationsPending() const {
  return controller_->explanationsPending();
}

void MainWindow::importTraces(const ImportRequest& request, bool dialogs) {
  importer_->start(request, currentFile(), dialogs);
}

bool MainWindow::importBusy() const {
  return importer_->busy();
}

QString MainWindow::lastImportSummary() const {
  return importer_->lastSummary();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape && area_->clearRangeBands()) return;
  QMainWindow::keyPressEvent(event);
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
  if (!format.isEmpty()) importer_->choose(files, currentFile());
}

}  // namespace ps::ui
