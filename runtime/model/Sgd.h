#pragma once
// Stochastic gradient descent, optionally with (heavy-ball) momentum:
// v = momentum·v + g; p −= lr·v. Without momentum it keeps no state.

#include "runtime/model/Optimizer.h"
#include "runtime/model/Tensor.h"

namespace ps::runtime {

class Sgd final : public Optimizer {
 public:
  Sgd(const OptimizerConfig& config, std::size_t params, std::shared_ptr<MemoryCounter> counter);
  void step(float* params, const float* grads) override;
  std::int64_t stateBytes() const override { return velocity_.bytes(); }
  void predict(std::span<float> out, std::span<const float> params, int updates) const override;

 private:
  float lr_;
  float momentum_;
  std::size_t size_;
  kernels::ComputeDevice* device_;
  Tensor velocity_;  // empty without momentum
};

}  // namespace ps::runtime
