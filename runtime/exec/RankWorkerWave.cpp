// RankWorker's wave-synchronous optimizer step (HetPipe, Plan::waveStaleness D): each replica
// (virtual worker) publishes the gradients of every layer it holds at its step's end and steps
// its optimizer on its own gradients of step k plus the other replicas' of step k − D, waiting
// for those if they are not there yet. A replica thus starts step k + 1 from every replica's
// contributions up to step k − D and its own since, whatever the threads' timing: the weights
// are deterministic. HetPipe's parameter server adds the workers' updates; under SGD (the
// paper's) that is the same as adding their gradients, and adding gradients keeps D = 0 the
// synchronous step under any optimizer: the gradients are summed in replica order, the replica's
// own included, so every replica computes the all-reduce's sum bit for bit.

#include <algorithm>
#include <string>

#include "runtime/exec/RankWorker.h"

namespace ps::runtime {

void ExecShared::publishWaveGradients(const WaveKey& key, std::vector<float> grads, int readers) {
  {
    std::lock_guard lock(mutex);
    waveGradients[key] = {std::move(grads), readers};
  }
  waveReady.notify_all();
}

Result<std::vector<float>> ExecShared::takeWaveGradients(const WaveKey& key) {
  std::unique_lock lock(mutex);
  waveReady.wait(lock, [&] { return abort.load() || waveGradients.count(key) > 0; });
  if (abort) return Error{"aborted"};
  auto it = waveGradients.find(key);
  std::vector<float> out = it->second.first;
  if (--it->second.second <= 0) waveGradients.erase(it);
  return out;
}

Status RankWorker::waveOptimizerStep(const Action& a) {
  const Plan& plan = *s_.plan;
  const int replicas = plan.numReplicas();
  const int lagged = a.step - plan.waveStaleness;
  for (auto& [id, model] : stages_) {
    const int replica = id.first;
    std::span<float> grads = model->gradients();
    const std::vector<float> own(grads.begin(), grads.end());
    // What the replicas' copies of a layer hold alike (not a shard of MoE experts).
    const std::size_t perLayer = model->replicatedPerLayer();
    for (int layer = model->firstLayer(); layer <= model->lastLayer(); ++layer) {
      const auto at = static_cast<long>(model->layerOffset(layer));
      s_.publishWaveGradients({replica, a.step, layer},
                              {own.begin() + at, own.begin() + at + static_cast<long>(perLayer)},
                              replicas - 1);
    }
    std::fill(grads.begin(), grads.end(), 0.0f);
    for (int k = 0; k < replicas; ++k) {
      if (k == replica) {
        for (std::size_t i = 0; i < grads.size(); ++i)
          grads[i] += own[i];
        continue;
      }
      if (lagged < 0) continue;  // nothing from the others yet
      for (int layer = model->firstLayer(); layer <= model->lastLayer(); ++layer) {
        auto theirs = s_.takeWaveGradients({k, lagged, layer});
        if (!theirs) return Error{theirs.error()};
        float* mine = grads.data() + model->layerOffset(layer);
        for (std::size_t i = 0; i < perLayer; ++i)
          mine[i] += (*theirs)[i];
      }
    }
    model->optimizerStep();
  }
  return {};
}

}  // namespace ps::runtime
