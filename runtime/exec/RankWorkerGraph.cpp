// RankWorker's share of GNNPipe's staleness bound (Plan::historyRefresh): before every K-th step
// the stages refresh their layers' historical embeddings over the whole graph in stage order,
// each receiving every node's input from the stage before and sending every node's output to
// the stage after (a chain: the gnn model runs one pipeline). Each rank refreshes once its own
// previous step is done, so the refresh sees the updated weights and waits on nothing of that
// step; the step's forwards then read no neighbour computed on older weights.

#include "runtime/exec/OpRange.h"
#include "runtime/exec/RankWorker.h"

namespace ps::runtime {
namespace {

MessageKey refreshKey(int toStage, int step) {
  return {true, toStage, 0, 0, step, toStage - 1, MessageKey::kHistoryRefreshTag};
}

}  // namespace

Status RankWorker::refreshGraphHistory(int step) {
  const Plan& plan = *s_.plan;
  if (plan.historyRefresh <= 0 || step % plan.historyRefresh != 0) return {};
  Tensor carried;  // the previous stage's output when this rank holds that stage too
  for (auto& [id, model] : stages_) {  // in stage order (one replica)
    const int stage = id.second;
    if (!model->hasGraph()) continue;
    Tensor input = std::move(carried);
    if (stage > 0 && input.empty()) {
      const int from = plan.placement[0][stage - 1].rank;
      auto received = awaitTensor(refreshKey(stage, step), from);
      if (!received) return std::move(received).takeError();
      input = std::move(*received);
    }
    const bool last = stage + 1 == plan.numStages;
    Tensor output = last ? Tensor() : Tensor(memory_, model->graphElems());
    const Action fill{OpKind::FILL, stage, -1, step};
    {
      ScopedRange range(clock_, OpKind::FILL, fill);
      const std::int64_t start = stamp();
      PS_TRY(model->refreshHistory(step, input.empty() ? nullptr : input.data(),
                                   last ? nullptr : output.data()));
      record(OpKind::FILL, fill, start, stamp());
      pending_[step].ops.back().name = "history refresh";  // what the FILL is, in the trace
    }
    sampleMemory(step);
    if (last) continue;
    const int to = plan.placement[0][stage + 1].rank;
    if (to == rank_) {
      carried = std::move(output);
      continue;
    }
    const std::int64_t bytes = output.bytes();
    const TransferStamps t =
        s_.transport->send(refreshKey(stage + 1, step), rank_, to, std::move(output));
    record(OpKind::SEND_F, {OpKind::SEND_F, stage, -1, step}, t.start, t.end, to, bytes);
    pending_[step].ops.back().name = "history refresh";
  }
  return {};
}

}  // namespace ps::runtime
