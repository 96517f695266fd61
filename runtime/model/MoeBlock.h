#pragma once
// The mixture-of-experts block (BlockType::Moe, Piper's): y = x + Σ_{j ∈ top-k(x)} p_j(x)·E_j(x),
// p = softmax(Wr·x + br) over the experts, each expert E_j an MLP branch (MlpSublayer) run on the
// tokens routed to it (ExpertRouting.h), padded with zero rows up to the capacity so that every
// expert does the same work each micro-batch. A dropped token gets nothing from that expert; the
// gates are the router's probabilities, so the router learns through the experts' outputs.
//
// Expert parallelism (ModelConfig::expertShards R > 1): this copy holds experts/R of them and the
// router (the same in every copy). Each pass exchanges with the other copies through the stash's
// ExpertExchange: F sends every other shard its experts' tokens and gets their outputs back, I
// sends their output gradients and gets the token gradients back; each expert runs on R·C rows,
// C from each replica. W needs no exchange: an expert's weight gradient is its own shard's.
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
  std::size_t replicatedParamCount() const override;
  std::int64_t forwardStashBytes() const override;
  std::int64_t backwardStashBytes() const override;

 private:
  // Slots after the input: the probabilities [T×E] (F to I), ∂L/∂logits (I to W), this
  // replica's tokens' output from each expert [C×H] (F to I), then per local expert the tokens
  // it runs [R·C×H] and the MLP branch's own slots.
  static constexpr int kProbs = ActivationStash::kInputSlot + 1;
  static constexpr int kDLogits = kProbs + 1;
  int outputSlot(int expert) const { return kDLogits + 1 + expert; }
  int gatheredSlot(int local) const {
    return outputSlot(experts_) + local * (1 + MlpSublayer::kSlots);
  }
  int ownerOf(int expert) const { return expert / local_; }
  // One expert's block of C token rows in a part sent to or from shard o.
  std::size_t block() const { return static_cast<std::size_t>(capacity_) * hidden_; }
  // Exchanges parts with the other shards (R > 1); returns the parts as every shard sees them:
  // entry o is what shard o sent (the own entry: `parts`' own).
  std::vector<std::vector<float>> allToAll(ActivationStash& stash, int phase,
                                           std::vector<std::vector<float>> parts) const;

  int tokens_, hidden_, experts_, topK_, capacity_, shards_, shard_, local_;
  std::size_t router_ = 0, routerBias_ = 0;
  std::vector<MlpSublayer> branches_;  // the local experts, shard·local_ + e
};

}  // namespace ps::runtime
