// RankWorker's frozen encoder (DiffusionPipe): a FILL(0, m) of step k feeding step k + ahead runs
// a forward-only block on micro-batch m of that step's input and sends its output to the rank of
// stage 0, whose F takes it as its input. The encoder is one block more than the trained model
// (layer L, so its weights are its own and the same on every rank), built with weights only and
// never updated; no gradient flows into it.

#include "runtime/exec/ActionMessages.h"
#include "runtime/exec/OpRange.h"
#include "runtime/exec/RankWorker.h"

namespace ps::runtime {
namespace {

// The key of a frozen output for F(0, m) of `step`: no stage produces it (fromStage -1).
MessageKey frozenKey(int replica, int microbatch, int step) {
  return {false, 0, replica, microbatch, step, -1};
}

}  // namespace

Status RankWorker::createFrozenEncoder(const ModelConfig& config) {
  const Plan& plan = *s_.plan;
  bool mine = false;
  for (int r = 0; r < plan.numRanks; ++r)
    for (const Action& a : plan.programs[static_cast<std::size_t>(r)])
      if (a.kind == OpKind::FILL && a.stage >= 0) {
        fillRankOf_[{a.step + a.ahead, a.microbatch}] = r;
        mine = mine || r == rank_;
      }
  if (!mine) return {};
  ModelConfig encoder = config;
  encoder.layers = config.layers + 1;
  StageOptions options;
  options.firstLayer = options.lastLayer = config.layers;
  options.inference = true;  // weights only: frozen
  options.source = true;     // it reads the micro-batch's input
  options.memory = memory_;
  auto model = StageModel::create(encoder, options);
  if (!model) return Error{"rank " + std::to_string(rank_) + ": frozen encoder: " + model.error()};
  frozen_ = std::move(*model);
  return {};
}

Status RankWorker::frozenForward(const Action& a) {
  if (!frozen_) return Error{"holds no frozen encoder for " + actionLabel(a)};
  const int fed = a.step + a.ahead;
  Tensor out = frozen_->newBoundaryTensor();
  {
    ScopedRange range(clock_, OpKind::FILL, a);
    const std::int64_t start = stamp();
    PS_TRY(frozen_->forward({fed, a.microbatch}, nullptr, out.data()));
    record(OpKind::FILL, a, start, stamp());
  }
  sampleMemory(a.step);
  const int replica = s_.plan->replicaOf(a.microbatch);
  deliver(frozenKey(replica, a.microbatch, fed), s_.plan->rankOf(0, a.microbatch), std::move(out),
          OpKind::SEND_F, a);
  return {};
}

Result<Tensor> RankWorker::frozenInput(const Action& a) {
  if (a.stage != 0 || fillRankOf_.empty()) return Tensor();
  const auto it = fillRankOf_.find({a.step, a.microbatch});
  if (it == fillRankOf_.end()) return Tensor();
  return receive(frozenKey(s_.plan->replicaOf(a.microbatch), a.microbatch, a.step), it->second,
                 OpKind::RECV_F, a);
}

}  // namespace ps::runtime
