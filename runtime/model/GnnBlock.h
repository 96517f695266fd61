#pragma once
// The graph block (BlockType::Gnn, GNNPipe's): y = x + MLP(ā), ā_v = (x_v + Σ_{u ∈ N(v)} h_u) /
// (deg v + 1), h_u the current x_u for a neighbour in the micro-batch's chunk and the layer's
// historical embedding of u otherwise (GraphContext). F writes the chunk's inputs into the
// history for the chunks after it; the backward sends gradient to the chunk's own nodes only.
// Without a graph in the stash ā = x. Host devices only.

#include "runtime/model/Layer.h"
#include "runtime/model/MlpSublayer.h"

namespace ps::runtime {

class GnnBlock final : public Layer {
 public:
  explicit GnnBlock(const ModelConfig& config);

  void forward(const float* params, const float* in, float* out,
               ActivationStash& stash) const override;
  void backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                     float* dIn) const override;
  void backwardWeight(ActivationStash& stash, float* grads) const override;
  std::int64_t forwardStashBytes() const override;
  std::int64_t backwardStashBytes() const override;

 private:
  static constexpr int kAggregate = ActivationStash::kInputSlot + 1;
  MlpSublayer mlp_;
};

}  // namespace ps::runtime
