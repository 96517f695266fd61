// The run on screen while it is being written (issue 16 goal 4): a `pipescope-cli run` or an
// import in another process, or the app's own cpu or cuda run. The window follows it through a
// RunTail: on every change of the file (TraceFileWatch's tick) it reads only the steps committed
// since, in one read transaction of its own (the writer never waits for it), and shows the run
// grown, keeping where the user zoomed; a view that showed the whole run follows its end. Once
// the run has ended the tail is dropped and the run is what a fresh load would give.

#include <QStatusBar>

#include "trace/store/RunTail.h"
#include "ui/LinksPanel.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"
#include "ui/RunHistoryPanel.h"
#include "ui/StatsPanel.h"
#include "ui/TeachPanel.h"
#include "ui/TimelineArea.h"

namespace ps::ui {

bool MainWindow::followsLive() const {
  return current_ && !compared_ && !isUnsaved(current_->id()) &&
         current_->trace->info.status == trace::RunStatus::Running;
}

bool MainWindow::followLive() {
  if (!followsLive()) {
    tail_.reset();
    return false;
  }
  bool changed = true;
  if (!tail_ || tail_->runId() != current_->id()) {
    auto tail = trace::RunTail::open(path_.toStdString(), current_->id());
    if (!tail) {
      statusBar()->showMessage(QString("cannot follow run %1 live: %2")
                                   .arg(current_->id())
                                   .arg(QString::fromStdString(tail.error())),
                               8000);
      return false;
    }
    tail_ = std::make_unique<trace::RunTail>(std::move(*tail));
    // Just loaded whole (showRun): show again only what was committed since.
    const trace::RunTrace& shown = *current_->trace;
    std::int64_t held = static_cast<std::int64_t>(shown.opCount());
    for (const auto& r : shown.ranks)
      held += static_cast<std::int64_t>(r.memory.t.size());
    changed = tail_->rowsRead() != held || tail_->info().status != shown.info.status;
  } else {
    auto polled = tail_->poll();
    if (!polled) {  // the file between two states (replaced, the run deleted): the next tick says
      statusBar()->showMessage(QString::fromStdString(polled.error()), 5000);
      return true;
    }
    changed = *polled;
  }
  if (!changed) return true;
  auto run = analyseInMemory(path_, std::make_shared<trace::RunTrace>(tail_->snapshot()));
  area_->growRun(run);
  setCurrentRun(run);
  if (run->trace->info.status != trace::RunStatus::Running) tail_.reset();
  return true;
}

void MainWindow::onRunBegan(qint64 id) {
  // The app's own run: listed and shown from its first row, then followed as it trains.
  if (!listRuns(false, id) || !showRun(id)) return;
  followLive();
}

}  // namespace ps::ui
