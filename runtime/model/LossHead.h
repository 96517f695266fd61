#pragma once
// The loss applied after the model's last layer: mean squared error between the last layer's
// output and the synthetic target (SyntheticData). It has no parameters, so it lives on the last
// stage without changing parameter counts.

#include "kernels/ComputeDevice.h"
#include "runtime/model/ModelConfig.h"

namespace ps::runtime {

class LossHead {
 public:
  explicit LossHead(const ModelConfig& config) : elems_(config.activationElems()) {}

  // *loss (one double in `device`'s memory) = mean over the micro-batch's B·S·H values of
  // (out − target)². On a CUDA device it is read back only when someone asks for it.
  void forward(kernels::ComputeDevice& device, const float* out, const float* target,
               double* loss) const;
  // dOut = scale · ∂loss/∂out; scale = 1/M averages a step's gradient over its M micro-batches.
  void backward(kernels::ComputeDevice& device, const float* out, const float* target, float* dOut,
                float scale) const;

 private:
  long elems_;
};

}  // namespace ps::runtime
