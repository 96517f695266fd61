#include "runtime/model/Adam.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

void Adam::predict(std::span<float> out, std::span<const float> params, int updates) const {
  std::copy(params.begin(), params.end(), out.begin());
  if (t_ == 0 || updates <= 0) return;  // no step taken yet: no direction to follow
  std::vector<float> m(size_), v(size_);
  m_.device().download(m.data(), m_.data(), size_ * sizeof(float));
  v_.device().download(v.data(), v_.data(), size_ * sizeof(float));
  // The next steps' bias corrections are the current ones' to within (1 - β)·β^t: taken as is.
  const double c1 = 1.0 / (1.0 - std::pow(double{config_.beta1}, t_));
  const double c2 = 1.0 / (1.0 - std::pow(double{config_.beta2}, t_));
  const double scale = double{config_.lr} * updates;
  for (std::size_t i = 0; i < size_; ++i)
    out[i] -= static_cast<float>(scale * (m[i] * c1) / (std::sqrt(v[i] * c2) + config_.eps));
}

}  // namespace ps::runtime
