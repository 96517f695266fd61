#include "kernels/cpu/Elementwise.h"

namespace ps::kernels {

void residualAdd(const float* a, const float* b, float* out, long n) {
  for (long i = 0; i < n; ++i)
    out[i] = a[i] + b[i];
}

void axpy(float alpha, const float* x, float* y, long n) {
  for (long i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

void scale(float alpha, float* x, long n) {
  for (long i = 0; i < n; ++i)
    x[i] *= alpha;
}

}  // namespace ps::kernels
