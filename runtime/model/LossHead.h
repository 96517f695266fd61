#pragma once
// The loss applied after the model's last layer: mean squared error between the last layer's
// output and the synthetic target (SyntheticData). It has no parameters, so it lives on the last
// stage without changing parameter counts.

#include "runtime/model/ModelConfig.h"

namespace ps::runtime {

class LossHead {
 public:
  explicit LossHead(const ModelConfig& config) : elems_(config.activationElems()) {}

  // Mean over the micro-batch's B·S·H values of (out − target)².
  double forward(const float* out, const float* target) const;
  // dOut = scale · ∂loss/∂out; scale = 1/M averages a step's gradient over its M micro-batches.
  void backward(const float* out, const float* target, float* dOut, float scale) const;

 private:
  long elems_;
};

}  // namespace ps::runtime
