#include "runtime/model/MlpBlock.h"

namespace ps::runtime {

MlpBlock::MlpBlock(const ModelConfig& config)
    : Layer(config),
      mlp_(layout_, "mlp", config.rows(), config.hidden, config.ffnHidden(),
           ActivationStash::kInputSlot + 1,
           config.block == BlockType::Spiking ? config.timeSteps : 0) {}

void MlpBlock::forward(const float* params, const float* in, float* out,
                       ActivationStash& stash) const {
  const long n = config_.activationElems();
  const float* x = stash.copyIn(ActivationStash::kInputSlot, in, n);
  mlp_.forward(params, x, out, stash);
  stash.device().residualAdd(out, x, out, n);
}

void MlpBlock::backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                             float* dIn) const {
  // The residual passes dOut straight through; the branch's input gradient is added to it.
  stash.device().copy(dIn, dOut, 4 * config_.activationElems());
  mlp_.backwardInput(params, stash.get(ActivationStash::kInputSlot), dOut, stash, dIn, true);
}

void MlpBlock::backwardWeight(ActivationStash& stash, float* grads) const {
  mlp_.backwardWeight(stash.get(ActivationStash::kInputSlot), stash, grads);
  stash.clear();
}

std::int64_t MlpBlock::forwardStashBytes() const {
  return 4 * config_.activationElems() + mlp_.forwardStashBytes();
}

std::int64_t MlpBlock::backwardStashBytes() const {
  return 4 * config_.activationElems() + mlp_.backwardStashBytes();
}

}  // namespace ps::runtime
