// RankWorker on a stage DAG (GraphPipe): a join sums what its predecessors send (the branches'
// outputs add up), a fork sends its output to every successor, and the gradients flow back the
// same way: the join's input gradient goes to every branch, a fork sums its successors'.

#include "runtime/exec/RankWorker.h"

namespace ps::runtime {

Status RankWorker::checkReceived(const Tensor& got, long expected, int peer,
                                 const Action& a) const {
  if (static_cast<long>(got.size()) == expected) return {};
  return Error{"rank " + std::to_string(rank_) + ": " + actionLabel(a) + " got " +
               std::to_string(got.size()) + " floats from rank " + std::to_string(peer) +
               ", expected " + std::to_string(expected)};
}

Status RankWorker::receiveAndAdd(const std::vector<ActionMessage>& messages, Tensor& sum,
                                 const Action& a) {
  for (const ActionMessage& m : messages) {
    auto got = receive(m.key, m.peer, m.kind, a);
    if (!got) return std::move(got).takeError();
    PS_TRY(checkReceived(*got, static_cast<long>(sum.size()), m.peer, a));
    sum.device().axpy(1.0f, got->data(), sum.data(), static_cast<long>(sum.size()));
  }
  return {};
}

void RankWorker::deliverCopies(const std::vector<ActionMessage>& messages, const Tensor& tensor,
                               const StageModel& model, const Action& a) {
  for (const ActionMessage& m : messages) {
    Tensor copy = model.newBoundaryTensor({a.step, a.microbatch});
    copy.device().copy(copy.data(), tensor.data(), static_cast<std::size_t>(tensor.bytes()));
    deliver(m.key, m.peer, std::move(copy), m.kind, a);
  }
}

}  // namespace ps::runtime
