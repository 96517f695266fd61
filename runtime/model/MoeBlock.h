#pragma once
// The mixture-of-experts block (BlockType::Moe, Piper's): y = x + Σ_{j ∈ top-k(x)} p_j(x)·E_j(x),
// p = softmax(Wr·x + br) over the experts, each expert E_j an MLP branch (MlpSublayer) run on the
// tokens routed to it (ExpertRouting.h), padded with zero rows up to the capacity so that every
// expert does the same work each micro-batch. A dropped token gets nothing from that expert; the
// gates are the router's probabilities, so the router learns through the experts' outputs.
// Host devices only (the routing reads the probabilities on the host).

#include <vector>

#include "runtime/model/Layer.h"
#include "runtime/model/MlpSublayer.h"

namespace ps::runtime {

class MoeBlock final : public Layer {
 public:
  explicit MoeBlock(const ModelConfig& config);

  void forward(const float* params, const float* in, float* out,
               ActivationStash& stash) const override;
  void backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                     float* dIn) const override;
  void backwardWeight(ActivationStash& stash, float* grads) const override;
  std::int64_t forwardStashBytes() const override;
  std::int64_t backwardStashBytes() const override;

 private:
  // Slots after the input: the probabilities [T×E] (F to I), ∂L/∂logits (I to W), then per
  // expert its gathered tokens and its output [C×H] and the MLP branch's own slots.
  static constexpr int kProbs = ActivationStash::kInputSlot + 1;
  static constexpr int kDLogits = kProbs + 1;
  static constexpr int kPerExpert = 2 + MlpSublayer::kSlots;
  static int gatheredSlot(int expert) { return kDLogits + 1 + expert * kPerExpert; }
  static int outputSlot(int expert) { return gatheredSlot(expert) + 1; }

  int tokens_, hidden_, experts_, topK_, capacity_;
  std::size_t router_ = 0, routerBias_ = 0;
  std::vector<MlpSublayer> branches_;
};

}  // namespace ps::runtime
