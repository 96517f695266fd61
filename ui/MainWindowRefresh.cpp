// The window follows its trace file while another process writes it: a run appended by
// `pipescope-cli sim --db FILE` shows in the history within a poll or two (TraceFileWatch), a
// run shown while it was still running is reloaded once it has finished, a deleted run gives
// way to the latest one, and a file that was removed or replaced by something else leaves what
// is loaded on screen with a word in the status bar. The selected run is never reloaded unless
// its status changed.

#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>

#include "trace/store/TraceStore.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"
#include "ui/RunController.h"
#include "ui/RunHistoryPanel.h"
#include "ui/TraceFileWatch.h"

namespace ps::ui {

void MainWindow::refreshFromFile() {
  if (path_.isEmpty()) return;
  if (!QFileInfo::exists(path_)) {
    if (!fileGone_)
      statusBar()->showMessage(
          QString("%1 was removed: the run on screen stays until you open another").arg(path_),
          10000);
    fileGone_ = true;
    return;
  }
  fileGone_ = false;
  auto store = trace::TraceStore::open(path_.toStdString(), trace::TraceStore::Mode::ReadOnly);
  if (!store) {
    statusBar()->showMessage(
        QString::fromStdString(store.error()) + " (the file changed; the run on screen stays)",
        10000);
    return;
  }
  auto runs = store->listRuns();
  if (!runs) {
    // A writer between its statements: look again shortly, the watch saw its last change.
    QTimer::singleShot(TraceFileWatch::kPollMs, this, &MainWindow::refreshFromFile);
    return;
  }
  std::vector<qint64> added;
  for (const auto& r : *runs)
    if (!history_->info(r.id)) added.push_back(r.id);
  if (!history_->updateRuns(*runs)) {
    if (followsLive()) followLive();  // the same runs, the one on screen grown
    return;
  }
  // A run shown from memory counts as present and unchanged while it is being saved.
  const auto inFile = [&](qint64 id) -> const trace::RunInfo* {
    if (const auto it = unsaved_.find(id); it != unsaved_.end()) return &it->second->trace->info;
    const auto it = std::find_if(runs->begin(), runs->end(),
                                 [id](const trace::RunInfo& r) { return r.id == id; });
    return it == runs->end() ? nullptr : &*it;
  };
  if (runs->empty()) {
    statusBar()->showMessage(path_ + ": every run was deleted (the run on screen stays)", 10000);
    return;
  }
  if (current_) {
    const trace::RunInfo* a = inFile(current_->id());
    const trace::RunInfo* b = compared_ ? inFile(compared_->id()) : nullptr;
    if (!a || (compared_ && !b)) {
      statusBar()->showMessage(
          QString("run %1 was deleted from the file").arg(!a ? current_->id() : compared_->id()),
          8000);
      showRun(a ? current_->id() : history_->currentRun());
      return;
    }
    // Shown while running: followed step by step (MainWindowLive.cpp), to its end.
    if (followsLive()) {
      followLive();
      return;
    }
    // Compared while running: reloaded once it has ended.
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
    statusBar()->showMessage(added.size() == 1
                                 ? QString("run %1 added to the file").arg(added.front())
                                 : QString("%1 runs added to the file").arg(added.size()),
                             5000);
}

}  // namespace ps::ui
