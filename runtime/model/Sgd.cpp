#include "runtime/model/Sgd.h"

namespace ps::runtime {

Sgd::Sgd(const OptimizerConfig& config, std::size_t params, std::shared_ptr<MemoryCounter> counter)
    : lr_(config.lr), momentum_(config.momentum), size_(params), device_(&counter->device()) {
  if (momentum_ > 0) velocity_ = Tensor(std::move(counter), params);
}

void Sgd::step(float* params, const float* grads) {
  device_->sgdStep(params, grads, velocity_.empty() ? nullptr : velocity_.data(),
                   static_cast<long>(size_), lr_, momentum_);
}

}  // namespace ps::runtime
