#include "runtime/model/LossHead.h"

#include "kernels/cpu/Loss.h"

namespace ps::runtime {

double LossHead::forward(const float* out, const float* target) const {
  return kernels::mseForward(out, target, elems_);
}

void LossHead::backward(const float* out, const float* target, float* dOut, float scale) const {
  kernels::mseBackward(out, target, dOut, elems_, scale);
}

}  // namespace ps::runtime
