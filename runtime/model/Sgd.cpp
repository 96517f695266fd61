#include "runtime/model/Sgd.h"

#include <algorithm>
#include <vector>

namespace ps::runtime {

Sgd::Sgd(const OptimizerConfig& config, std::size_t params, std::shared_ptr<MemoryCounter> counter)
    : lr_(config.lr), momentum_(config.momentum), size_(params), device_(&counter->device()) {
  if (momentum_ > 0) velocity_ = Tensor(std::move(counter), params);
}

void Sgd::step(float* params, const float* grads) {
  device_->sgdStep(params, grads, velocity_.empty() ? nullptr : velocity_.data(),
                   static_cast<long>(size_), lr_, momentum_);
}

void Sgd::predict(std::span<float> out, std::span<const float> params, int updates) const {
  std::copy(params.begin(), params.end(), out.begin());
  if (velocity_.empty() || updates <= 0) return;
  std::vector<float> v(size_);
  device_->download(v.data(), velocity_.data(), size_ * sizeof(float));
  const float scale = lr_ * static_cast<float>(updates);
  for (std::size_t i = 0; i < size_; ++i)
    out[i] -= scale * v[i];
}

}  // namespace ps::runtime
