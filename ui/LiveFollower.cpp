#include "ui/LiveFollower.h"

#include "trace/store/RunTail.h"
#include "ui/LoadedRun.h"

namespace ps::ui {

LiveFollower::LiveFollower(QObject* parent) : QObject(parent) {}

LiveFollower::~LiveFollower() = default;  // here: RunTail is complete

void LiveFollower::stop() {
  tail_.reset();
}

bool LiveFollower::follow(const QString& path, const std::shared_ptr<const LoadedRun>& shown) {
  bool changed = true;
  if (!tail_ || tail_->runId() != shown->id()) {
    auto tail = trace::RunTail::open(path.toStdString(), shown->id());
    if (!tail) {
      emit message(QString("cannot follow run %1 live: %2")
                       .arg(shown->id())
                       .arg(QString::fromStdString(tail.error())),
                   8000);
      return false;
    }
    tail_ = std::make_unique<trace::RunTail>(std::move(*tail));
    // Just loaded whole: announce again only when something was committed since.
    const trace::RunTrace& held = *shown->trace;
    std::int64_t rows = static_cast<std::int64_t>(held.opCount());
    for (const auto& r : held.ranks)
      rows += static_cast<std::int64_t>(r.memory.t.size());
    changed = tail_->rowsRead() != rows || tail_->info().status != held.info.status;
  } else {
    auto polled = tail_->poll();
    if (!polled) {  // the file between two states (replaced, the run deleted): the next tick says
      emit message(QString::fromStdString(polled.error()), 5000);
      return true;
    }
    changed = *polled;
  }
  if (!changed) return true;
  auto run = analyseInMemory(path, std::make_shared<trace::RunTrace>(tail_->snapshot()));
  const bool ended = run->trace->info.status != trace::RunStatus::Running;
  emit grown(run);
  if (ended) tail_.reset();
  return true;
}

}  // namespace ps::ui
