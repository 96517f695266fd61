#include "runtime/model/TransformerBlock.h"

namespace ps::runtime {

namespace {
kernels::AttentionShape attentionShape(const ModelConfig& c) {
  return {c.microbatchSize, c.seq, c.hidden, c.heads};
}
}  // namespace

TransformerBlock::TransformerBlock(const ModelConfig& config)
    : Layer(config),
      attn_(layout_, "attn", attentionShape(config), kMidSlot + 1),
      mlp_(layout_, "mlp", config.rows(), config.hidden, config.ffnHidden(),
           kMidSlot + 1 + AttentionSublayer::kSlots) {}

void TransformerBlock::forward(const float* params, const float* in, float* out,
                               ActivationStash& stash) const {
  const long n = config_.activationElems();
  const float* x = stash.copyIn(ActivationStash::kInputSlot, in, n);
  float* h = stash.allocate(kMidSlot, n);
  kernels::ComputeDevice& dev = stash.device();
  attn_.forward(params, x, h, stash);
  dev.residualAdd(h, x, h, n);
  mlp_.forward(params, h, out, stash);
  dev.residualAdd(out, h, out, n);
}

void TransformerBlock::backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                                     float* dIn) const {
  const long n = config_.activationElems();
  kernels::ComputeDevice& dev = stash.device();
  // dH = dOut + MLP branch gradient; dIn = dH + attention branch gradient.
  Tensor dH = stash.scratch(n);
  dev.copy(dH.data(), dOut, 4 * n);
  mlp_.backwardInput(params, stash.get(kMidSlot), dOut, stash, dH.data(), true);
  dev.copy(dIn, dH.data(), 4 * n);
  attn_.backwardInput(params, stash.get(ActivationStash::kInputSlot), dH.data(), stash, dIn, true);
}

void TransformerBlock::backwardWeight(ActivationStash& stash, float* grads) const {
  mlp_.backwardWeight(stash.get(kMidSlot), stash, grads);
  attn_.backwardWeight(stash.get(ActivationStash::kInputSlot), stash, grads);
  stash.clear();
}

std::int64_t TransformerBlock::forwardStashBytes() const {
  return 8 * config_.activationElems() + attn_.forwardStashBytes() + mlp_.forwardStashBytes();
}

std::int64_t TransformerBlock::backwardStashBytes() const {
  return 8 * config_.activationElems() + attn_.backwardStashBytes() + mlp_.backwardStashBytes();
}

}  // namespace ps::runtime
