#include "kernels/cpu/LayerNorm.h"

#include <cmath>

#include "kernels/cpu/VectorMath.h"

namespace ps::kernels {

PS_SIMD_CLONES void layerNormForward(const float* x, const float* gamma, const float* beta,
                                     float* y, float* mean, float* rstd, int rows, int cols,
                                     float eps) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<long>(r) * cols;
    float* yr = y + static_cast<long>(r) * cols;
    // Two passes in double: the variance of activations with a large mean stays accurate.
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int c = 0; c < cols; ++c)
      sum += xr[c];
    const double mu = sum / cols;
    double sq = 0;
#pragma omp simd reduction(+ : sq)
    for (int c = 0; c < cols; ++c)
      sq += (xr[c] - mu) * (xr[c] - mu);
    const float m = static_cast<float>(mu);
    const float rs = static_cast<float>(1.0 / std::sqrt(sq / cols + eps));
    mean[r] = m;
    rstd[r] = rs;
#pragma omp simd
    for (int c = 0; c < cols; ++c)
      yr[c] = (xr[c] - m) * rs * gamma[c] + beta[c];
  }
}

PS_SIMD_CLONES void layerNormBackwardInput(const float* dy, const float* x, const float* gamma,
                                           const float* mean, const float* rstd, float* dx,
                                           int rows, int cols, bool accumulate) {
  for (int r = 0; r < rows; ++r) {
    const long off = static_cast<long>(r) * cols;
    const float m = mean[r];
    const float rs = rstd[r];
    // dx = rstd · (g − mean(g) − x̂ · mean(g·x̂)) with g = dy·gamma.
    double sumG = 0;
    double sumGx = 0;
#pragma omp simd reduction(+ : sumG, sumGx)
    for (int c = 0; c < cols; ++c) {
      const float g = dy[off + c] * gamma[c];
      sumG += g;
      sumGx += g * ((x[off + c] - m) * rs);
    }
    const float meanG = static_cast<float>(sumG / cols);
    const float meanGx = static_cast<float>(sumGx / cols);
#pragma omp simd
    for (int c = 0; c < cols; ++c) {
      const float xhat = (x[off + c] - m) * rs;
      const float v = rs * (dy[off + c] * gamma[c] - meanG - xhat * meanGx);
      dx[off + c] = accumulate ? dx[off + c] + v : v;
    }
  }
}

PS_SIMD_CLONES void layerNormBackwardWeight(const float* dy, const float* x, const float* mean,
                                            const float* rstd, float* dgamma, float* dbeta,
                                            int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const long off = static_cast<long>(r) * cols;
#pragma omp simd
    for (int c = 0; c < cols; ++c) {
      dgamma[c] += dy[off + c] * ((x[off + c] - mean[r]) * rstd[r]);
      dbeta[c] += dy[off + c];
    }
  }
}

}  // namespace ps::kernels
