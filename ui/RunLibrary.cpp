#include "ui/RunLibrary.h"

#include <QFileInfo>
#include <QTimer>

#include <algorithm>

#include "trace/store/TraceStore.h"
#include "ui/LoadedRun.h"
#include "ui/RunHistoryPanel.h"
#include "ui/TraceFileWatch.h"

namespace ps::ui {

RunLibrary::RunLibrary(RunHistoryPanel* history, QObject* parent)
    : QObject(parent), history_(history), watch_(new TraceFileWatch(this)) {
  connect(watch_, &TraceFileWatch::changed, this, &RunLibrary::poll);
}

Status RunLibrary::open(const QString& path) {
  const QString previous = path_;
  path_ = path;
  if (Status listed = list(); !listed) {
    path_ = previous;
    return listed;
  }
  if (path_ != previous) {
    unsaved_.clear();
    history_->clearUnsaved();
  }
  watch_->setPath(path);
  fileGone_ = false;
  return {};
}

Result<std::vector<trace::RunInfo>> RunLibrary::readRuns() const {
  auto store = trace::TraceStore::open(path_.toStdString(), trace::TraceStore::Mode::ReadOnly);
  if (!store) return Error{store.error()};
  return store->listRuns();
}

Status RunLibrary::list(qint64 current) {
  auto runs = readRuns();
  if (!runs) return Error{runs.error()};
  if (runs->empty()) return Error{(path_ + ": the trace holds no runs").toStdString()};
  history_->setRuns(*runs, current);
  return {};
}

Result<std::shared_ptr<const LoadedRun>> RunLibrary::load(qint64 id) const {
  if (const auto it = unsaved_.find(id); it != unsaved_.end()) return it->second;
  return loadAndAnalyse(path_, id);
}

const trace::RunInfo* RunLibrary::inFile(qint64 id) const {
  if (const auto it = unsaved_.find(id); it != unsaved_.end()) return &it->second->trace->info;
  const auto it = std::find_if(runs_.begin(), runs_.end(),
                               [id](const trace::RunInfo& r) { return r.id == id; });
  return it == runs_.end() ? nullptr : &*it;
}

void RunLibrary::poll() {
  if (path_.isEmpty()) return;
  if (!QFileInfo::exists(path_)) {
    if (!fileGone_)
      emit message(
          QString("%1 was removed: the run on screen stays until you open another").arg(path_),
          10000);
    fileGone_ = true;
    return;
  }
  fileGone_ = false;
  auto store = trace::TraceStore::open(path_.toStdString(), trace::TraceStore::Mode::ReadOnly);
  if (!store) {
    emit message(
        QString::fromStdString(store.error()) + " (the file changed; the run on screen stays)",
        10000);
    return;
  }
  auto runs = store->listRuns();
  if (!runs) {
    // A writer between its statements: look again shortly, the watch saw its last change.
    QTimer::singleShot(TraceFileWatch::kPollMs, this, &RunLibrary::poll);
    return;
  }
  std::vector<qint64> added;
  for (const auto& r : *runs)
    if (!history_->info(r.id)) added.push_back(r.id);
  runs_ = std::move(*runs);
  if (!history_->updateRuns(runs_)) {
    emit runsUnchanged();
    return;
  }
  if (runs_.empty()) {
    emit message(path_ + ": every run was deleted (the run on screen stays)", 10000);
    return;
  }
  emit runsChanged(added);
}

bool RunLibrary::keepUnsaved(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder) {
  if (run->file != path_) return false;  // another file was opened meanwhile: saved, not shown
  unsaved_[placeholder] = run;
  history_->setUnsaved(placeholder, run->trace->info, "saving");
  history_->selectRun(placeholder);
  return true;
}

std::shared_ptr<const LoadedRun> RunLibrary::adoptId(qint64 placeholder, qint64 id) {
  const auto it = unsaved_.find(placeholder);
  if (it == unsaved_.end()) return nullptr;
  const std::shared_ptr<const LoadedRun> run = it->second;
  unsaved_.erase(it);
  adoptRunId(*run, id);
  unsaved_[id] = run;
  history_->dropUnsaved(placeholder);
  history_->setUnsaved(id, run->trace->info, "saving");
  return run;
}

bool RunLibrary::dropSaved(qint64 id) {
  const auto it = unsaved_.find(id);
  if (it == unsaved_.end()) return false;
  unsaved_.erase(it);
  history_->dropUnsaved(id);
  return true;
}

bool RunLibrary::markNotSaved(qint64 key, const QString& message) {
  const auto it = unsaved_.find(key);
  if (it == unsaved_.end()) return false;
  history_->setUnsaved(key, it->second->trace->info, "not saved: " + message);
  return true;
}

void RunLibrary::replaceUnsaved(const std::shared_ptr<const LoadedRun>& run,
                                const std::shared_ptr<const LoadedRun>& with) {
  for (auto& [id, unsaved] : unsaved_)
    if (unsaved == run) unsaved = with;
}

}  // namespace ps::ui
