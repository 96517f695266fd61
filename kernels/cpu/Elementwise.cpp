#include "kernels/cpu/Elementwise.h"

#include <cmath>
#include <string>

#include "kernels/cpu/VectorMath.h"

namespace ps::kernels {

PS_SIMD_CLONES void residualAdd(const float* a, const float* b, float* out, long n) {
  for (long i = 0; i < n; ++i)
    out[i] = a[i] + b[i];
}

PS_SIMD_CLONES void axpy(float alpha, const float* x, float* y, long n) {
  for (long i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

PS_SIMD_CLONES void scale(float alpha, float* x, long n) {
  for (long i = 0; i < n; ++i)
    x[i] *= alpha;
}

PS_SIMD_CLONES void adamUpdate(float* params, const float* grads, float* m, float* v, long n,
                               float lr, float beta1, float beta2, float eps, float c1, float c2) {
#pragma omp simd
  for (long i = 0; i < n; ++i) {
    const float g = grads[i];
    m[i] = beta1 * m[i] + (1.0f - beta1) * g;
    v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
    params[i] -= lr * (m[i] * c1) / (std::sqrt(v[i] * c2) + eps);
  }
}

std::string simdLevel() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2";
  return "sse2";
#else
  return "scalar";
#endif
}

}  // namespace ps::kernels
