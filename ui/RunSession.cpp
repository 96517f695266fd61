#include "ui/RunSession.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>
#include <QTimer>

#include "runtime/run/RunConfig.h"
#include "runtime/run/RunPlan.h"
#include "trace/store/TraceCopy.h"
#include "trace/store/TraceStore.h"
#include "ui/CompareModel.h"
#include "ui/LiveFollower.h"
#include "ui/LoadedRun.h"
#include "ui/PlanDock.h"
#include "ui/PlanKnobWidgets.h"
#include "ui/PlanPanel.h"
#include "ui/RunController.h"
#include "ui/RunHistoryPanel.h"
#include "ui/RunLibrary.h"
#include "ui/RunProgress.h"
#include "ui/ScratchSession.h"
#include "ui/TimelineArea.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {

RunSession::RunSession(const SessionViews& views, RunLibrary* library, RunController* controller,
                       QObject* parent)
    : QObject(parent),
      v_(views),
      controller_(controller),
      library_(library),
      live_(new LiveFollower(this)),
      scratch_(new ScratchSession(*this, v_.status, this)) {
  connect(v_.history, &RunHistoryPanel::selectionChanged, this, &RunSession::followSelection);
  connect(controller_, &RunController::finished, this, &RunSession::onRunFinished);
  connect(controller_, &RunController::failed, this, &RunSession::onRunFailed);
  connect(controller_, &RunController::cancelled, this, &RunSession::onRunCancelled);
  connect(controller_, &RunController::previewed, this, &RunSession::onPreviewed);
  connect(controller_, &RunController::saveBegan, this, &RunSession::onSaveBegan);
  connect(controller_, &RunController::saved, this, &RunSession::onSaved);
  connect(controller_, &RunController::saveFailed, this, &RunSession::onSaveFailed);
  connect(controller_, &RunController::explained, this, &RunSession::onExplained);
  connect(controller_, &RunController::began, this, &RunSession::onRunBegan);
  connect(library_, &RunLibrary::message, v_.status, &QStatusBar::showMessage);
  connect(library_, &RunLibrary::runsChanged, this, &RunSession::onRunsChanged);
  connect(library_, &RunLibrary::runsUnchanged, this, [this] {
    if (followsLive()) followLive();  // the same runs, the one on screen grown
  });
  connect(live_, &LiveFollower::message, v_.status, &QStatusBar::showMessage);
  connect(live_, &LiveFollower::grown, this, [this](const std::shared_ptr<const LoadedRun>& run) {
    v_.area->growRun(run);
    setCurrent(run);
  });
  connect(v_.plan, &PlanDock::runRequested, this, &RunSession::run);
  connect(v_.plan, &PlanDock::status, v_.status, &QStatusBar::showMessage);
  connect(v_.plan, &PlanDock::failed, this, [this](const QString& message) {
    fail(message, false);
    v_.status->showMessage(message, 15000);
  });
}

QString RunSession::file() const {
  return library_->file();
}

void RunSession::fail(const QString& message, bool dialog) {
  lastError_ = message;
  if (dialog) QMessageBox::critical(v_.window, "PipeScope", message);
}

bool RunSession::list(qint64 current) {
  if (Status listed = library_->list(current); !listed) {
    fail(QString::fromStdString(listed.error()), false);
    return false;
  }
  return true;
}

void RunSession::setCurrent(const std::shared_ptr<const LoadedRun>& run) {
  current_ = run;
  emit currentRunChanged(run);
}

bool RunSession::open(const QString& path, bool dialogs) {
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
      if (dialogs && QMessageBox::question(v_.window, "PipeScope",
                                           lastError_ + "\n\nImport it now?") == QMessageBox::Yes)
        emit importAsked(path);
      return false;
    }
  }
  const QString previous = library_->file();
  if (Status opened = library_->open(path); !opened) {
    fail(QString::fromStdString(opened.error()), dialogs);
    emit fileRefused(path);
    return false;
  }
  if (path != previous) live_->stop();
  emit fileOpened(path);
  return showLoadableRun();
}

bool RunSession::showLoadableRun() {
  const qint64 first = v_.history->currentRun();
  if (showRun(first)) return true;
  const QString refused = lastError_;
  auto runs = library_->readRuns();
  if (!runs) return false;
  for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
    if (it->id == first || !showRun(it->id)) continue;
    fail(QString("run %1 not shown: %2; the other runs load").arg(first).arg(refused), false);
    v_.status->showMessage(lastError_);
    return true;
  }
  fail(refused, false);
  return false;
}

bool RunSession::showRun(qint64 id) {
  auto run = library_->load(id);
  if (!run) {
    fail(QString::fromStdString(run.error()), false);
    return false;
  }
  v_.history->selectRun(id);
  showLoaded(*run);
  return true;
}

void RunSession::showLoaded(const std::shared_ptr<const LoadedRun>& run) {
  endComparison();
  v_.area->showRun(run);
  setCurrent(run);
  v_.plan->showKnobsOf(*run);
  // The loader's word on what it left out of the file; every line is in the Stats dock.
  if (const auto& warnings = run->trace->warnings; !warnings.empty())
    v_.status->showMessage(
        QString::fromStdString(warnings.front()) +
            (warnings.size() > 1 ? QString(" (%1 more in Stats)").arg(warnings.size() - 1)
                                 : QString()),
        15000);
}

void RunSession::endComparison() {
  compared_.reset();
  v_.compare->clear();
  const bool shown = !v_.compareDock->isHidden();
  v_.compareDock->hide();
  if (shown && frontBeforeCompare_) frontBeforeCompare_->raise();
}

// One run selected: it is shown everywhere. Two: the current one (A) everywhere, the other (B)
// in the second timeline and the table. More: the current one, and the status bar says why.
void RunSession::followSelection() {
  const QList<qint64> selected = v_.history->selectedRuns();
  if (selected.isEmpty()) return;
  if (selected.size() == 2) {
    compareRuns(selected[0], selected[1]);
    return;
  }
  if (!current_ || current_->id() != selected[0] || v_.area->comparing()) {
    auto run = library_->load(selected[0]);
    if (!run) return fail(QString::fromStdString(run.error()), false);
    showLoaded(*run);
  }
  if (selected.size() > 2) v_.status->showMessage("select exactly two runs to compare them", 5000);
}

bool RunSession::compareRuns(qint64 a, qint64 b) {
  auto runA = current_ && current_->id() == a ? Result<std::shared_ptr<const LoadedRun>>(current_)
                                              : library_->load(a);
  auto runB = library_->load(b);
  if (!runA || !runB) {
    fail(QString::fromStdString(!runA ? runA.error() : runB.error()), false);
    return false;
  }
  if (!current_ || current_->id() != a) {
    setCurrent(*runA);
    v_.plan->showKnobsOf(*current_);
  }
  compared_ = *runB;
  v_.history->selectPair(a, b);
  v_.area->showComparison(current_, compared_);
  v_.compare->setRuns(current_->analysis, compared_->analysis);
  showOpDiff();
  if (auto* window = qobject_cast<QMainWindow*>(v_.window); window && v_.compareDock->isHidden())
    for (QDockWidget* dock : window->findChildren<QDockWidget*>())
      if (dock != v_.compareDock && window->dockWidgetArea(dock) == Qt::BottomDockWidgetArea &&
          dock->isVisible() && !dock->visibleRegion().isEmpty())
        frontBeforeCompare_ = dock;
  v_.compareDock->show();
  v_.compareDock->raise();
  // A tabified dock shown before the window is laid out raises only once it is: again, later.
  QTimer::singleShot(0, v_.compareDock, [this] {
    if (compared_) v_.compareDock->raise();
  });
  return true;
}

// A fitted plan or a what-if of one, just shown: compared with the imported run it came from
// (A, the recorded original) while its own knobs stay in the plan panel for the next what-if.
void RunSession::compareWithFitOrigin(const LoadedRun& run) {
  const auto origin = runtime::fittedFromRun(run.trace->info.config_json);
  if (!origin || *origin == run.id() || v_.history->info(*origin) == nullptr) return;
  if (!compareRuns(*origin, run.id())) return;
  v_.plan->showKnobsOf(run);
}

bool RunSession::showImported(qint64 id) {
  if (!list(id)) return false;
  showRun(id);
  v_.status->showMessage(QString("run %1 imported").arg(id), 5000);
  return true;
}

void RunSession::run(const runtime::RunPlanRequest& request) {
  if (file().isEmpty() && !scratch_->open()) return;
  v_.plan->panel()->setRunning(true);
  // Knobs of a plan fitted to an import: the run is a what-if of that import.
  controller_->start(v_.plan->whatIf(request), file());
}

void RunSession::onRunFinished(qint64 id) {
  v_.plan->panel()->setRunning(false);
  v_.progress->loading();
  const struct HideProgress {
    RunProgress* progress;
    ~HideProgress() { progress->hide(); }
  } hide{v_.progress};
  if (!list(id)) return;
  v_.status->clearMessage();
  // Followed while it trained: the last steps and its status are read, the view kept.
  if (current_ && current_->id() == id && followsLive() && followLive() &&
      current_->trace->info.status != trace::RunStatus::Running) {
    v_.status->showMessage(QString("run %1 added").arg(id), 5000);
    return;
  }
  if (!showRun(id)) return;
  v_.status->showMessage(QString("run %1 added").arg(id), 5000);
  compareWithFitOrigin(*current_);
}

void RunSession::onRunFailed(const QString& message) {
  v_.plan->panel()->setRunning(false);
  v_.progress->hide();
  lastError_ = message;
  v_.plan->panel()->showRunError(message);
  v_.status->showMessage(inPanelWords(message.toStdString()), 10000);
}

void RunSession::onRunCancelled(const QString& message) {
  // Nothing is wrong with the knobs: Run stays available (issue 34 item 3).
  v_.plan->panel()->setRunning(false);
  v_.progress->hide();
  v_.status->showMessage(message.isEmpty() ? QString("run cancelled") : message, 10000);
}

void RunSession::onRunBegan(qint64 id) {
  // The app's own run: listed and shown from its first row, then followed as it trains.
  if (!list(id) || !showRun(id)) return;
  followLive();
}

bool RunSession::followsLive() const {
  return current_ && !compared_ && !library_->isUnsaved(current_->id()) &&
         current_->trace->info.status == trace::RunStatus::Running;
}

bool RunSession::followLive() {
  if (!followsLive()) {
    live_->stop();
    return false;
  }
  return live_->follow(file(), current_);
}

// Another writer changed the file's runs: a deleted run on screen gives way to the latest one, a
// run shown while it was running is followed to its end (compared: reloaded once it has ended).
// The selected run is never reloaded unless its status changed.
void RunSession::onRunsChanged(const std::vector<qint64>& added) {
  if (current_) {
    const trace::RunInfo* a = library_->inFile(current_->id());
    const trace::RunInfo* b = compared_ ? library_->inFile(compared_->id()) : nullptr;
    if (!a || (compared_ && !b)) {
      v_.status->showMessage(
          QString("run %1 was deleted from the file").arg(!a ? current_->id() : compared_->id()),
          8000);
      showRun(a ? current_->id() : v_.history->currentRun());
      return;
    }
    if (followsLive()) {
      followLive();
      return;
    }
    const bool aChanged = a->status != current_->trace->info.status;
    const bool bChanged = compared_ && b->status != compared_->trace->info.status;
    if (aChanged || bChanged) {
      if (compared_) {
        const qint64 ida = current_->id(), idb = compared_->id();
        if (aChanged) current_.reset();  // compareRuns keeps a loaded A
        compareRuns(ida, idb);
      } else
        showRun(current_->id());
    }
  }
  if (!added.empty() && !controller_->busy())
    v_.status->showMessage(added.size() == 1
                               ? QString("run %1 added to the file").arg(added.front())
                               : QString("%1 runs added to the file").arg(added.size()),
                           5000);
}

// A simulated run is shown from memory as soon as it exists and listed as "saving" until its
// rows are committed; a failed save says so in the history and the status bar and keeps the run
// on screen and selectable. Its explanation arrives a little after its picture.
void RunSession::onPreviewed(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder) {
  v_.plan->panel()->setRunning(false);
  v_.progress->hide();
  if (!library_->keepUnsaved(run, placeholder)) return;
  v_.status->clearMessage();
  showLoaded(run);
  compareWithFitOrigin(*run);
}

void RunSession::onSaveBegan(qint64 placeholder, qint64 id) {
  const std::shared_ptr<const LoadedRun> run = library_->adoptId(placeholder, id);
  if (!run) return;
  if (current_ == run) {
    v_.area->retitle(*run);
    list(id);
    // The docks showed the placeholder id (Stats: "run -2"): they follow the file's now.
    emit currentRunChanged(run);
  } else if (compared_ == run) {
    // B of a comparison (a what-if beside its import): its file id in the title and the table.
    v_.area->retitleCompared(*run);
    v_.compare->setRuns(current_->analysis, compared_->analysis);
    list(current_->id());
    v_.history->selectPair(current_->id(), id);
  } else {
    list(v_.history->currentRun());
  }
}

void RunSession::onSaved(qint64 id) {
  if (!library_->dropSaved(id)) return;
  library_->poll();
  if (!controller_->busy())
    v_.status->showMessage(QString("run %1 saved to the file").arg(id), 5000);
}

void RunSession::onSaveFailed(qint64 placeholder, qint64 id, const QString& message) {
  if (!library_->markNotSaved(id >= 0 ? id : placeholder, message)) return;
  lastError_ = "the run was not saved: " + message;
  v_.status->showMessage(lastError_ + " (it stays on screen until you close the window)", 15000);
}

void RunSession::onExplained(const std::shared_ptr<const LoadedRun>& run,
                             const std::shared_ptr<const trace::RunExplanation>& why) {
  const std::shared_ptr<const LoadedRun> explained = withExplanation(*run, why);
  library_->replaceUnsaved(run, explained);
  if (current_ == run) setCurrent(explained);
  if (compared_ == run) compared_ = explained;
  v_.area->explain(*explained);
}

bool RunSession::saveAs(const QString& to, bool dialogs) {
  if (file().isEmpty()) {
    fail("no trace file is open: nothing to save", dialogs);
    return false;
  }
  if (Status saved = trace::saveTraceCopy(file().toStdString(), to.toStdString()); !saved) {
    fail(QString::fromStdString(saved.error()), dialogs);
    return false;
  }
  if (!open(to, dialogs)) return false;
  v_.status->showMessage(QString("saved as %1").arg(to), 8000);
  return true;
}

}  // namespace ps::ui
