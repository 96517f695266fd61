#include "runtime/model/Adam.h"

#include <cmath>

namespace ps::runtime {

Adam::Adam(const OptimizerConfig& config, std::size_t params,
           std::shared_ptr<MemoryCounter> counter)
    : config_(config), size_(params), m_(counter, params), v_(counter, params) {}

void Adam::step(float* params, const float* grads) {
  ++t_;
  // Bias corrections in double: 1 − β2ᵗ is tiny for early steps.
  const auto c1 = static_cast<float>(1.0 / (1.0 - std::pow(double{config_.beta1}, t_)));
  const auto c2 = static_cast<float>(1.0 / (1.0 - std::pow(double{config_.beta2}, t_)));
  m_.device().adamStep(params, grads, m_.data(), v_.data(), static_cast<long>(size_), config_.lr,
                       config_.beta1, config_.beta2, config_.eps, c1, c2);
}

}  // namespace ps::runtime
