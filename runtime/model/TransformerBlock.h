#pragma once
// Pre-LN transformer block: h = x + Attn(LN1(x)); y = h + MLP(LN2(h)), with causal multi-head
// self-attention and a GELU MLP of width ffnMultiplier·H.

#include "runtime/model/AttentionSublayer.h"
#include "runtime/model/Layer.h"
#include "runtime/model/MlpSublayer.h"

namespace ps::runtime {

class TransformerBlock final : public Layer {
 public:
  explicit TransformerBlock(const ModelConfig& config);

  void forward(const float* params, const float* in, float* out,
               ActivationStash& stash) const override;
  void backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                     float* dIn) const override;
  void backwardWeight(ActivationStash& stash, float* grads) const override;
  std::int64_t forwardStashBytes() const override;
  std::int64_t backwardStashBytes() const override;

 private:
  static constexpr int kMidSlot = ActivationStash::kInputSlot + 1;  // h, the MLP branch's input

  AttentionSublayer attn_;
  MlpSublayer mlp_;
};

}  // namespace ps::runtime
