#include "kernels/cpu/Linear.h"

#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/VectorMath.h"

namespace ps::kernels {

namespace {

PS_SIMD_CLONES void addRowBias(float* Y, const float* b, int rows, int out) {
  for (int r = 0; r < rows; ++r) {
    float* y = Y + static_cast<long>(r) * out;
#pragma omp simd
    for (int o = 0; o < out; ++o)
      y[o] += b[o];
  }
}

}  // namespace

void linearForward(const float* X, const float* W, const float* b, float* Y, int rows, int in,
                   int out) {
  sgemm(false, true, rows, out, in, 1.0f, X, in, W, in, 0.0f, Y, out);
  if (b != nullptr) addRowBias(Y, b, rows, out);
}

void linearBackwardInput(const float* dY, const float* W, float* dX, int rows, int in, int out,
                         bool accumulate) {
  sgemm(false, false, rows, in, out, 1.0f, dY, out, W, in, accumulate ? 1.0f : 0.0f, dX, in);
}

void linearBackwardWeight(const float* dY, const float* X, float* dW, float* db, int rows, int in,
                          int out) {
  sgemm(true, false, out, in, rows, 1.0f, dY, out, X, in, 1.0f, dW, in);
  if (db != nullptr) addColumnSums(dY, db, rows, out);
}

PS_SIMD_CLONES void addColumnSums(const float* dY, float* db, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* g = dY + static_cast<long>(r) * cols;
    for (int c = 0; c < cols; ++c)
      db[c] += g[c];
  }
}

}  // namespace ps::kernels
