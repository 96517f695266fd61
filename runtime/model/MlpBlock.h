#pragma once
// Residual MLP block: y = x + W2·GELU(W1·LN(x) + b1) + b2; the spiking block is the same with
// LIF firing rates in place of GELU (BlockType::Spiking).

#include "runtime/model/Layer.h"
#include "runtime/model/MlpSublayer.h"

namespace ps::runtime {

class MlpBlock final : public Layer {
 public:
  explicit MlpBlock(const ModelConfig& config);

  void forward(const float* params, const float* in, float* out,
               ActivationStash& stash) const override;
  void backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                     float* dIn) const override;
  void backwardWeight(ActivationStash& stash, float* grads) const override;
  std::int64_t forwardStashBytes() const override;
  std::int64_t backwardStashBytes() const override;

 private:
  MlpSublayer mlp_;
};

}  // namespace ps::runtime
