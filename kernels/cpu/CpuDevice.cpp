#include "kernels/cpu/CpuDevice.h"

#include <malloc.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/cpu/Kernels.h"

namespace ps::kernels {

std::string_view dtypeName(DType type) {
  return type == DType::Bf16 ? "bf16" : "fp32";
}

ComputeDevice& hostDevice() {
  static CpuDevice device;
  return device;
}

namespace {

// Activations are allocated and freed every pass. Above glibc's mmap threshold each allocation
// would map fresh pages and fault them in again (measured: 9 % of the unpipelined model's time,
// more in a VM); kept on the heap, freed blocks are reused warm.
void keepActivationsOnTheHeap() {
  static const bool once = [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    return true;
  }();
  (void)once;
}

}  // namespace

void* CpuDevice::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  keepActivationsOnTheHeap();
  const std::size_t rounded = (bytes + 255) / 256 * 256;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(256, rounded);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded);
  return p;
}

void CpuDevice::release(void* ptr, std::size_t) noexcept {
  std::free(ptr);
}

void CpuDevice::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memmove(dst, src, bytes);
}

void CpuDevice::upload(void* dst, const void* hostSrc, std::size_t bytes) {
  copy(dst, hostSrc, bytes);
}

void CpuDevice::download(void* hostDst, const void* src, std::size_t bytes) {
  copy(hostDst, src, bytes);
}

void CpuDevice::readBack(void* hostDst, const void* src, std::size_t bytes) {
  copy(hostDst, src, bytes);
}

void CpuDevice::fill(float* x, float value, long n) {
  for (long i = 0; i < n; ++i)
    x[i] = value;
}

void CpuDevice::residualAdd(const float* a, const float* b, float* out, long n) {
  kernels::residualAdd(a, b, out, n);
}

void CpuDevice::axpy(float alpha, const float* x, float* y, long n) {
  kernels::axpy(alpha, x, y, n);
}

void CpuDevice::geluForward(const float* x, float* y, long n) {
  kernels::geluForward(x, y, n);
}

void CpuDevice::geluBackward(const float* x, const float* dy, float* dx, long n, bool accumulate) {
  kernels::geluBackward(x, dy, dx, n, accumulate);
}

void CpuDevice::lifForward(const float* h, float* rate, long n, int steps) {
  kernels::lifForward(h, rate, n, steps);
}

void CpuDevice::lifBackward(const float* h, const float* dRate, float* dh, long n, int steps,
                            bool accumulate) {
  kernels::lifBackward(h, dRate, dh, n, steps, accumulate);
}

void CpuDevice::linearForward(const float* X, const float* W, const float* b, float* Y, int rows,
                              int in, int out) {
  kernels::linearForward(X, W, b, Y, rows, in, out);
}

void CpuDevice::linearBackwardInput(const float* dY, const float* W, float* dX, int rows, int in,
                                    int out, bool accumulate) {
  kernels::linearBackwardInput(dY, W, dX, rows, in, out, accumulate);
}

void CpuDevice::linearBackwardWeight(const float* dY, const float* X, float* dW, float* db,
                                     int rows, int in, int out) {
  kernels::linearBackwardWeight(dY, X, dW, db, rows, in, out);
}

void CpuDevice::layerNormForward(const float* x, const float* gamma, const float* beta, float* y,
                                 float* mean, float* rstd, int rows, int cols) {
  kernels::layerNormForward(x, gamma, beta, y, mean, rstd, rows, cols);
}

void CpuDevice::layerNormBackwardInput(const float* dy, const float* x, const float* gamma,
                                       const float* mean, const float* rstd, float* dx, int rows,
                                       int cols, bool accumulate) {
  kernels::layerNormBackwardInput(dy, x, gamma, mean, rstd, dx, rows, cols, accumulate);
}

void CpuDevice::layerNormBackwardWeight(const float* dy, const float* x, const float* mean,
                                        const float* rstd, float* dgamma, float* dbeta, int rows,
                                        int cols) {
  kernels::layerNormBackwardWeight(dy, x, mean, rstd, dgamma, dbeta, rows, cols);
}

void CpuDevice::attentionForward(const AttentionShape& s, const float* x, const AttentionWeights& w,
                                 const AttentionSaved& saved, float* out) {
  kernels::attentionForward(s, x, w, saved, out);
}

void CpuDevice::attentionBackwardInput(const AttentionShape& s, const AttentionWeights& w,
                                       const AttentionSaved& saved, const float* dOut, float* dQkv,
                                       float* dX, float* scratch, bool accumulate) {
  kernels::attentionBackwardInput(s, w, saved, dOut, dQkv, dX, scratch, accumulate);
}

void CpuDevice::attentionBackwardWeight(const AttentionShape& s, const float* x, const float* ctx,
                                        const float* dOut, const float* dQkv,
                                        const AttentionGrads& g) {
  kernels::attentionBackwardWeight(s, x, ctx, dOut, dQkv, g);
}

void CpuDevice::mseForward(const float* y, const float* target, long n, double* loss) {
  *loss = kernels::mseForward(y, target, n);
}

void CpuDevice::mseBackward(const float* y, const float* target, float* dy, long n, float scale) {
  kernels::mseBackward(y, target, dy, n, scale);
}

void CpuDevice::sgdStep(float* params, const float* grads, float* velocity, long n, float lr,
                        float momentum) {
  if (!velocity) {
    for (long i = 0; i < n; ++i)
      params[i] -= lr * grads[i];
    return;
  }
  for (long i = 0; i < n; ++i) {
    velocity[i] = momentum * velocity[i] + grads[i];
    params[i] -= lr * velocity[i];
  }
}

void CpuDevice::adamStep(float* params, const float* grads, float* m, float* v, long n, float lr,
                         float beta1, float beta2, float eps, float c1, float c2) {
  adamUpdate(params, grads, m, v, n, lr, beta1, beta2, eps, c1, c2);
}

}  // namespace ps::kernels
