// RankWorker's hand-over of finished steps to the collector: the step's losses, the device
// clock's deferral by one step, and inference steps (no OPT) ending at their last op.
#include <mutex>

#include "runtime/exec/RankWorker.h"

namespace ps::runtime {

Status RankWorker::endInferenceStep(int step) {
  if (!clock_) return handOver(step, stepLosses(step, false));
  deferred_.push_back(step);  // a device: as after OPT, handed over a step later
  return handOverDeferred(1, std::nullopt);
}

std::vector<double> RankWorker::stepLosses(int step, bool finished) const {
  std::vector<double> losses;
  const Plan& plan = *s_.plan;
  for (const auto& [id, model] : stages_) {
    if (!model->isLast()) continue;
    for (int mb = 0; mb < plan.numMicrobatches(); ++mb) {
      if (plan.replicaOf(mb) != id.first) continue;
      const MicrobatchKey key{step, mb};
      if (auto l = finished ? model->finishedLoss(key) : model->loss(key)) losses.push_back(*l);
    }
  }
  return losses;
}

Status RankWorker::resolvePending(int step, std::optional<std::chrono::milliseconds> within) {
  for (auto it = pending_.begin(); it != pending_.end() && it->first <= step; ++it)
    PS_TRY(within ? clock_->resolveWithin(it->second, *within) : clock_->resolve(it->second));
  return {};
}

Status RankWorker::handOverDeferred(std::size_t keep,
                                    std::optional<std::chrono::milliseconds> within) {
  while (deferred_.size() > keep) {
    const int step = deferred_.front();
    deferred_.pop_front();
    PS_TRY(resolvePending(step, within));  // the step's events are complete from here on
    PS_TRY(handOver(step, stepLosses(step, true)));
  }
  return {};
}

Status RankWorker::handOver(int step, const std::vector<double>& losses) {
  {
    std::lock_guard lock(s_.mutex);
    if (!losses.empty()) {
      auto& all = s_.losses[step];
      all.insert(all.end(), losses.begin(), losses.end());
    }
    for (auto it = pending_.begin(); it != pending_.end() && it->first <= step;) {
      auto& dst = s_.steps[it->first];
      auto& src = it->second;
      dst.ops.insert(dst.ops.end(), std::make_move_iterator(src.ops.begin()),
                     std::make_move_iterator(src.ops.end()));
      dst.memory.insert(dst.memory.end(), src.memory.begin(), src.memory.end());
      it = pending_.erase(it);
    }
    ++s_.ranksDone[step];
  }
  s_.stepReady.notify_all();
  return s_.onHandOver ? s_.onHandOver(step) : Status{};
}

}  // namespace ps::runtime
