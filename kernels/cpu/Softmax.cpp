#include "kernels/cpu/Softmax.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu/VectorMath.h"

namespace ps::kernels {

PS_SIMD_CLONES void softmaxForward(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<long>(r) * cols;
    float* yr = y + static_cast<long>(r) * cols;
    float mx = xr[0];
#pragma omp simd reduction(max : mx)
    for (int c = 0; c < cols; ++c)
      mx = xr[c] > mx ? xr[c] : mx;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int c = 0; c < cols; ++c) {
      yr[c] = fastExp(xr[c] - mx);
      sum += yr[c];
    }
    const float inv = 1.0f / sum;
#pragma omp simd
    for (int c = 0; c < cols; ++c)
      yr[c] *= inv;
  }
}

PS_SIMD_CLONES void softmaxBackward(const float* y, const float* dy, float* dx, int rows,
                                    int cols) {
  for (int r = 0; r < rows; ++r) {
    const long off = static_cast<long>(r) * cols;
    float dot = 0;
#pragma omp simd reduction(+ : dot)
    for (int c = 0; c < cols; ++c)
      dot += dy[off + c] * y[off + c];
#pragma omp simd
    for (int c = 0; c < cols; ++c)
      dx[off + c] = y[off + c] * (dy[off + c] - dot);
  }
}

void causalSoftmaxForward(float* scores, int n) {
  for (int i = 0; i < n; ++i) {
    float* row = scores + static_cast<long>(i) * n;
    softmaxForward(row, row, 1, i + 1);
    std::fill(row + i + 1, row + n, 0.0f);
  }
}

void causalSoftmaxBackward(const float* probs, float* dp, int n) {
  for (int i = 0; i < n; ++i) {
    const long off = static_cast<long>(i) * n;
    softmaxBackward(probs + off, dp + off, dp + off, 1, i + 1);
    std::fill(dp + off + i + 1, dp + off + n, 0.0f);
  }
}

}  // namespace ps::kernels
