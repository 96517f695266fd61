#include "runtime/model/Sgd.h"

namespace ps::runtime {

Sgd::Sgd(const OptimizerConfig& config, std::size_t params, std::shared_ptr<MemoryCounter> counter)
    : lr_(config.lr), momentum_(config.momentum), size_(params) {
  if (momentum_ > 0) velocity_ = Tensor(std::move(counter), params);
}

void Sgd::step(float* params, const float* grads) {
  if (velocity_.empty()) {
    for (std::size_t i = 0; i < size_; ++i)
      params[i] -= lr_ * grads[i];
    return;
  }
  float* v = velocity_.data();
  for (std::size_t i = 0; i < size_; ++i) {
    v[i] = momentum_ * v[i] + grads[i];
    params[i] -= lr_ * v[i];
  }
}

}  // namespace ps::runtime
