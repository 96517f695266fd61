// The main window's unsaved runs: a simulated run is shown from memory as soon as it exists
// (RunController::previewed) and listed as "saving" until its rows are committed; a failed save
// says so in the history and the status bar and keeps the run on screen and selectable. Its
// explanation arrives a little after its picture (RunController::explained).

#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include "ui/CompareModel.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"
#include "ui/RunController.h"
#include "ui/RunHistoryPanel.h"
#include "ui/StatsPanel.h"
#include "ui/TimelineArea.h"

namespace ps::ui {

int MainWindow::savesPending() const {
  return controller_->savesPending();
}

int MainWindow::explanationsPending() const {
  return controller_->explanationsPending();
}

Result<std::shared_ptr<const LoadedRun>> MainWindow::loadRun(qint64 id) const {
  if (const auto it = unsaved_.find(id); it != unsaved_.end()) return it->second;
  return loadAndAnalyse(path_, id);
}

void MainWindow::onRunPreviewed(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder) {
  plan_->setRunning(false);
  cancel_->setVisible(false);
  progress_->setVisible(false);
  if (run->file != path_) return;  // another file was opened meanwhile: it is saved, not shown
  unsaved_[placeholder] = run;
  history_->setUnsaved(placeholder, run->trace->info, "saving");
  history_->selectRun(placeholder);
  statusBar()->clearMessage();
  showLoaded(run);
  compareWithFitOrigin(*run);
}

void MainWindow::onSaveBegan(qint64 placeholder, qint64 id) {
  const auto it = unsaved_.find(placeholder);
  if (it == unsaved_.end()) return;
  const std::shared_ptr<const LoadedRun> run = it->second;
  unsaved_.erase(it);
  adoptRunId(*run, id);
  unsaved_[id] = run;
  history_->dropUnsaved(placeholder);
  history_->setUnsaved(id, run->trace->info, "saving");
  if (current_ == run) {
    area_->retitle(*run);
    listRuns(false, id);
  } else if (compared_ == run) {
    // B of a comparison (a what-if beside its import): its file id in the title and the table.
    area_->retitleCompared(*run);
    compare_->setRuns(current_->analysis, compared_->analysis);
    listRuns(false, current_->id());
    history_->selectPair(current_->id(), id);
  } else {
    listRuns(false, history_->currentRun());
  }
}

void MainWindow::onSaved(qint64 id) {
  const auto it = unsaved_.find(id);
  if (it == unsaved_.end()) return;
  unsaved_.erase(it);
  history_->dropUnsaved(id);
  refreshFromFile();
  if (!runBusy()) statusBar()->showMessage(QString("run %1 saved to the file").arg(id), 5000);
}

void MainWindow::onSaveFailed(qint64 placeholder, qint64 id, const QString& message) {
  const qint64 key = id >= 0 ? id : placeholder;
  const auto it = unsaved_.find(key);
  if (it == unsaved_.end()) return;
  lastError_ = "the run was not saved: " + message;
  history_->setUnsaved(key, it->second->trace->info, "not saved: " + message);
  statusBar()->showMessage(lastError_ + " (it stays on screen until you close the window)", 15000);
}

void MainWindow::onRunExplained(const std::shared_ptr<const LoadedRun>& run,
                                const std::shared_ptr<const trace::RunExplanation>& why) {
  const std::shared_ptr<const LoadedRun> explained = withExplanation(*run, why);
  for (auto& [id, unsaved] : unsaved_)
    if (unsaved == run) unsaved = explained;
  if (current_ == run) setCurrentRun(explained);
  if (compared_ == run) compared_ = explained;
  area_->explain(*explained);
}

}  // namespace ps::ui
