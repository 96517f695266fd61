// ExecShared (ExecShared.h): failing the run, waking the waiting rank threads, the replicas'
// twins, and the run's final status.
#include "runtime/exec/ExecShared.h"

#include <algorithm>

#include "runtime/exec/CpuExecutor.h"

namespace ps::runtime {

void ExecShared::fail(const std::string& message) {
  {
    std::lock_guard lock(mutex);
    if (failure.empty() && !cancelled) failure = message;
  }
  abort = true;
  if (transport) transport->wakeAll();
  if (onFail) onFail(message);
  stepReady.notify_all();
}

void ExecShared::wakeThreadWaiters() {
  for (auto& m : mailboxes)
    m->wakeAll();
  if (barrier) barrier->wakeAll();
  {
    std::lock_guard lock(mutex);  // a waiter between its check and its wait still wakes
  }
  waveReady.notify_all();
}

std::vector<std::pair<StageModel*, StageModel*>> ExecShared::twinsHeldBy(
    const RankStages& stages) const {
  std::vector<std::pair<StageModel*, StageModel*>> out;
  for (const auto& [id, model] : stages) {
    if (id.first != 0) continue;
    for (int k = 1; k < plan->numReplicas(); ++k) {
      auto it = stageModels.find({k, id.second});
      if (it != stageModels.end() && it->second) out.push_back({model.get(), it->second});
    }
  }
  return out;
}

std::vector<ReplicaSlice> ExecShared::replicaSlicesHeldBy(const RankStages& stages) const {
  std::vector<ReplicaSlice> out;
  for (const auto& [id, model] : stages) {
    if (id.first != 0) continue;
    for (int k = 1; k < plan->numReplicas(); ++k)
      for (std::size_t t = 0; t < plan->placement[k].size(); ++t) {
        const StagePlacement& place = plan->placement[k][t];
        const int first = std::max(place.firstLayer, model->firstLayer());
        const int last = std::min(place.lastLayer, model->lastLayer());
        auto it = stageModels.find({k, static_cast<int>(t)});
        if (first <= last && it != stageModels.end() && it->second)
          out.push_back({model.get(), it->second, first, last});
      }
  }
  return out;
}

void finishResult(const ExecShared& s, const Status& writeStatus, CpuRunResult& result) {
  if (s.cancelled) {
    result.status = trace::RunStatus::Cancelled;
    result.message = "cancelled by the user";
  } else if (!s.failure.empty() || !writeStatus) {
    result.status = trace::RunStatus::Failed;
    result.message = !s.failure.empty() ? s.failure : writeStatus.error();
  }
}

}  // namespace ps::runtime
