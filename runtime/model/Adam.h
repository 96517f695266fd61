#pragma once
// Adam (Kingma & Ba) with bias correction: m = β1·m + (1−β1)·g, v = β2·v + (1−β2)·g²,
// p −= lr · m̂ / (√v̂ + eps) with m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ).

#include "runtime/model/Optimizer.h"
#include "runtime/model/Tensor.h"

namespace ps::runtime {

class Adam final : public Optimizer {
 public:
  Adam(const OptimizerConfig& config, std::size_t params, std::shared_ptr<MemoryCounter> counter);
  void step(float* params, const float* grads) override;
  std::int64_t stateBytes() const override { return m_.bytes() + v_.bytes(); }
  void predict(std::span<float> out, std::span<const float> params, int updates) const override;

 private:
  OptimizerConfig config_;
  std::size_t size_;
  Tensor m_;
  Tensor v_;
  int t_ = 0;  // steps taken
};

}  // namespace ps::runtime
