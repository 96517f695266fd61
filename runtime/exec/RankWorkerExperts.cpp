// RankWorker's expert parallelism (Piper, --a2a-mb with --model moe and --dp R): each replica's
// copy of a stage holds experts/R of every MoE layer's experts, and the layer's all-to-all runs
// between the copies of its stage over the transport, inside the F and I ops that need it. The
// replicas run the same program, so the copies of a stage reach each exchange of the same
// micro-batch (the i-th of each replica) in the same order. Overlapped (--a2a overlap), the rank
// runs its program on two OpLanes: while one micro-batch waits for its exchange, the next
// computes.

#include <algorithm>
#include <string>

#include "kernels/ComputeDevice.h"
#include "runtime/exec/OpRange.h"
#include "runtime/exec/RankWorker.h"

namespace ps::runtime {

class RankWorker::StageExperts final : public ExpertExchange {
 public:
  StageExperts(RankWorker& worker, int replica, int stage)
      : w_(worker), replica_(replica), stage_(stage) {}

  std::vector<std::vector<float>> exchange(MicrobatchKey key, int layer, int phase,
                                           std::vector<std::vector<float>> parts) override {
    const Plan& plan = *w_.s_.plan;
    const int replicas = plan.numReplicas();
    const int perReplica = plan.numMicrobatches() / replicas;
    const int local = key.microbatch - replica_ * perReplica;
    const Action a{OpKind::A2A, stage_, key.microbatch, key.step};
    ScopedRange range(w_.clock_, OpKind::A2A, a);
    const std::int64_t start = w_.stamp();
    std::int64_t bytes = 0;
    int peer = -1;
    for (int o = 0; o < replicas; ++o) {
      if (o == replica_) continue;
      Tensor t = Tensor::fromHost(w_.memory_, parts[static_cast<std::size_t>(o)]);
      bytes += t.bytes();
      peer = plan.placement[o][stage_].rank;
      w_.s_.transport->send(keyOf(replica_, key.microbatch, key.step, layer, phase), w_.rank_, peer,
                            std::move(t));
    }
    std::vector<std::vector<float>> got(static_cast<std::size_t>(replicas));
    std::int64_t arrived = start;
    for (int o = 0; o < replicas; ++o) {
      if (o == replica_) continue;
      const int from = plan.placement[o][stage_].rank;
      auto t =
          w_.awaitTensor(keyOf(o, local + o * perReplica, key.step, layer, phase), from, &arrived);
      if (!t) throw kernels::DeviceError(t.error());
      got[static_cast<std::size_t>(o)].assign(t->data(), t->data() + t->size());
    }
    w_.record(OpKind::A2A, a, start, arrived, replicas == 2 ? peer : -1, bytes);
    return got;
  }

 private:
  MessageKey keyOf(int replica, int microbatch, int step, int layer, int phase) const {
    return {false, stage_, replica, microbatch, step, stage_, layer * 4 + phase};
  }

  RankWorker& w_;
  int replica_, stage_;
};

RankWorker::RankWorker(ExecShared& shared, int rank) : s_(shared), rank_(rank) {}
RankWorker::~RankWorker() = default;

void RankWorker::shareOutExperts(ModelConfig& config, int replica) const {
  const Plan& plan = *s_.plan;
  if (plan.expertAllToAll.bytes <= 0 || config.block != BlockType::Moe || plan.numReplicas() < 2)
    return;
  config.expertShards = plan.numReplicas();
  config.expertShard = replica;
}

bool RankWorker::overlapsExchanges() const {
  // Lanes need host stamps: a device clock's stamps follow one issuing thread's order.
  return s_.plan->expertAllToAll.overlap && !clock_ &&
         std::any_of(stages_.begin(), stages_.end(),
                     [](const auto& s) { return s.second->config().expertShards >= 2; });
}

void RankWorker::attachExperts(int replica, int stage, StageModel& model) {
  if (model.config().expertShards < 2) return;
  auto& exchange = experts_[{replica, stage}];
  exchange = std::make_unique<StageExperts>(*this, replica, stage);
  model.setExpertExchange(exchange.get());
}

}  // namespace ps::runtime
