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
  const float b1 = config_.beta1;
  const float b2 = config_.beta2;
  float* m = m_.data();
  float* v = v_.data();
  for (std::size_t i = 0; i < size_; ++i) {
    const float g = grads[i];
    m[i] = b1 * m[i] + (1.0f - b1) * g;
    v[i] = b2 * v[i] + (1.0f - b2) * g * g;
    params[i] -= config_.lr * (m[i] * c1) / (std::sqrt(v[i] * c2) + config_.eps);
  }
}

}  // namespace ps::runtime
