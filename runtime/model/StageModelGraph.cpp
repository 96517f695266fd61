// StageModel's part of GNNPipe's staleness bound: the history refresh, a forward-only pass of the
// stage's layers over every chunk of the graph on the live weights.
#include <cstring>
#include <string>

#include "runtime/model/StageModel.h"

namespace ps::runtime {

long StageModel::graphElems() const {
  return graph_ ? static_cast<long>(graph_->nodes) * config_.hidden : 0;
}

Status StageModel::refreshHistory(int step, const float* in, float* out) {
  const std::string what = "history refresh (step " + std::to_string(step) + ") of the stage of " +
                           "layers " + std::to_string(first_) + "-" + std::to_string(last_);
  if (!graph_) return Error{what + ": the model has no graph"};
  if (!device().isHost()) return Error{what + ": host devices only"};
  if (in == nullptr && !isFirst()) return Error{what + " has no input"};
  const int chunks = graph_->nodes / graph_->chunkSize;
  const long chunkElems = boundaryElems();
  Tensor current(memory_, graphElems()), next(memory_, graphElems());
  if (in != nullptr)
    std::memcpy(current.data(), in, static_cast<std::size_t>(current.bytes()));
  else
    for (int c = 0; c < chunks; ++c)
      data_.input({step, c}, current.data() + c * chunkElems);
  const Layer& block = blockFor({step, 0});
  for (int layer = first_; layer <= last_; ++layer) {
    float* history = history_[static_cast<std::size_t>(layer - first_)].data();
    // Every node's input first: the chunks below then read only current neighbours.
    std::memcpy(history, current.data(), static_cast<std::size_t>(current.bytes()));
    for (int c = 0; c < chunks; ++c) {
      ActivationStash scratch(memory_);
      scratch.setGraph({graph_.get(), history, c});
      block.forward(params_.data() + layerOffset(layer), current.data() + c * chunkElems,
                    next.data() + c * chunkElems, scratch);
    }
    std::swap(current, next);
  }
  if (out != nullptr) std::memcpy(out, current.data(), static_cast<std::size_t>(current.bytes()));
  return {};
}

}  // namespace ps::runtime
