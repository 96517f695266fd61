#pragma once
// The host as a ComputeDevice: heap memory and the kernels of kernels/cpu (OpenBLAS GEMM). Calls
// run at once on the calling thread; stateless, so one instance serves every rank.

#include "kernels/ComputeDevice.h"

namespace ps::kernels {

class CpuDevice final : public ComputeDevice {
 public:
  std::string name() const override { return "cpu"; }
  bool isHost() const override { return true; }

  void* allocate(std::size_t bytes) override;
  void release(void* ptr, std::size_t bytes) noexcept override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void upload(void* dst, const void* hostSrc, std::size_t bytes) override;
  void download(void* hostDst, const void* src, std::size_t bytes) override;
  void readBack(void* hostDst, const void* src, std::size_t bytes) override;
  void synchronize() override {}
  void fill(float* x, float value, long n) override;

  void residualAdd(const float* a, const float* b, float* out, long n) override;
  void axpy(float alpha, const float* x, float* y, long n) override;
  void geluForward(const float* x, float* y, long n) override;
  void geluBackward(const float* x, const float* dy, float* dx, long n, bool accumulate) override;
  void lifForward(const float* h, float* rate, long n, int steps) override;
  void lifBackward(const float* h, const float* dRate, float* dh, long n, int steps,
                   bool accumulate) override;

  void linearForward(const float* X, const float* W, const float* b, float* Y, int rows, int in,
                     int out) override;
  void linearBackwardInput(const float* dY, const float* W, float* dX, int rows, int in, int out,
                           bool accumulate) override;
  void linearBackwardWeight(const float* dY, const float* X, float* dW, float* db, int rows, int in,
                            int out) override;

  void layerNormForward(const float* x, const float* gamma, const float* beta, float* y,
                        float* mean, float* rstd, int rows, int cols) override;
  void layerNormBackwardInput(const float* dy, const float* x, const float* gamma,
                              const float* mean, const float* rstd, float* dx, int rows, int cols,
                              bool accumulate) override;
  void layerNormBackwardWeight(const float* dy, const float* x, const float* mean,
                               const float* rstd, float* dgamma, float* dbeta, int rows,
                               int cols) override;

  void attentionForward(const AttentionShape& s, const float* x, const AttentionWeights& w,
                        const AttentionSaved& saved, float* out) override;
  void attentionBackwardInput(const AttentionShape& s, const AttentionWeights& w,
                              const AttentionSaved& saved, const float* dOut, float* dQkv,
                              float* dX, float* scratch, bool accumulate) override;
  void attentionBackwardWeight(const AttentionShape& s, const float* x, const float* ctx,
                               const float* dOut, const float* dQkv,
                               const AttentionGrads& g) override;

  void mseForward(const float* y, const float* target, long n, double* loss) override;
  void mseBackward(const float* y, const float* target, float* dy, long n, float scale) override;

  void sgdStep(float* params, const float* grads, float* velocity, long n, float lr,
               float momentum) override;
  void adamStep(float* params, const float* grads, float* m, float* v, long n, float lr,
                float beta1, float beta2, float eps, float c1, float c2) override;
};

}  // namespace ps::kernels
