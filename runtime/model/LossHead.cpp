#include "runtime/model/LossHead.h"

namespace ps::runtime {

void LossHead::forward(kernels::ComputeDevice& device, const float* out, const float* target,
                       double* loss) const {
  device.mseForward(out, target, elems_, loss);
}

void LossHead::backward(kernels::ComputeDevice& device, const float* out, const float* target,
                        float* dOut, float scale) const {
  device.mseBackward(out, target, dOut, elems_, scale);
}

}  // namespace ps::runtime
