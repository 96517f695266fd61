#pragma once
// The position-wise MLP branch shared by the block types: o = W2·GELU(W1·LN(x) + b1) + b2
// ([R×H] → [R×F] → [R×H]), or with LIF firing rates in place of GELU (the spiking block). It
// returns the branch only; the block adds the residual. Its stash slots start at `firstSlot` of the
// block's stash; the block keeps x (the branch input).

#include <cstdint>
#include <string>

#include "runtime/model/ActivationStash.h"
#include "runtime/model/ParamLayout.h"

namespace ps::runtime {

class MlpSublayer {
 public:
  static constexpr int kSlots = 8;

  // Registers "<prefix>.ln.gamma", ".ln.beta", ".w1", ".b1", ".w2", ".b2" in `layout`.
  // spikingSteps > 0: leaky integrate-and-fire neurons over that many time steps in place of GELU
  // (the spiking block).
  MlpSublayer(ParamLayout& layout, const std::string& prefix, int rows, int hidden, int ffn,
              int firstSlot, int spikingSteps = 0);

  void forward(const float* params, const float* x, float* out, ActivationStash& stash) const;
  // dX = ∂L/∂x through the branch (added to dX when accumulate, for the residual).
  void backwardInput(const float* params, const float* x, const float* dOut, ActivationStash& stash,
                     float* dX, bool accumulate) const;
  void backwardWeight(const float* x, ActivationStash& stash, float* grads) const;

  std::int64_t forwardStashBytes() const;
  std::int64_t backwardStashBytes() const;

 private:
  enum Slot { kMean, kRstd, kLnOut, kHidden, kAct, kDOut, kDHidden, kDLnOut };
  int slot(Slot s) const { return firstSlot_ + s; }

  int rows_, hidden_, ffn_, firstSlot_, spikingSteps_;
  std::size_t gamma_, beta_, w1_, b1_, w2_, b2_;  // offsets in the layer's parameters
};

}  // namespace ps::runtime
