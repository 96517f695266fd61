#pragma once
// The attention branch of a pre-LN transformer block: o = Attn(LN(x)) with causal multi-head
// self-attention (kernels/cpu/Attention.h). Returns the branch only; the block adds the residual
// and keeps x. Stash slots start at `firstSlot` of the block's stash.

#include <cstdint>
#include <string>

#include "kernels/cpu/Attention.h"
#include "runtime/model/ActivationStash.h"
#include "runtime/model/ParamLayout.h"
#include "runtime/model/TokenLayout.h"

namespace ps::runtime {

class AttentionSublayer {
 public:
  static constexpr int kSlots = 9;

  // Registers "<prefix>.ln.gamma", ".ln.beta", ".wqkv", ".bqkv", ".wo", ".bo" in `layout`.
  AttentionSublayer(ParamLayout& layout, const std::string& prefix,
                    const kernels::AttentionShape& shape, int firstSlot);

  void forward(const float* params, const float* x, float* out, ActivationStash& stash) const;
  void backwardInput(const float* params, const float* x, const float* dOut, ActivationStash& stash,
                     float* dX, bool accumulate) const;
  void backwardWeight(const float* x, ActivationStash& stash, float* grads) const;

  std::int64_t forwardStashBytes() const;
  std::int64_t backwardStashBytes() const;

 private:
  enum Slot { kMean, kRstd, kLnOut, kQkv, kProbs, kCtx, kDOut, kDQkv, kDLnOut };
  int slot(Slot s) const { return firstSlot_ + s; }
  kernels::AttentionWeights weights(const float* p) const;
  // The attention core of a TokenLayouts micro-batch (MaskedAttention.h), projections included.
  void maskedForward(const float* p, const float* a, float* out, ActivationStash& st,
                     const TokenContext& t) const;
  void maskedBackwardInput(const float* p, const float* dOut, ActivationStash& st,
                           const TokenContext& t, float* dQkv, float* dA) const;

  kernels::AttentionShape shape_;
  int firstSlot_;
  std::size_t gamma_, beta_, wqkv_, bqkv_, wo_, bo_;
};

}  // namespace ps::runtime
