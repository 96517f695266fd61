#pragma once
// Where the trainable model's tensors live and where its math runs: the host (CpuDevice, the
// kernels in kernels/cpu over OpenBLAS) or one CUDA device (CudaDevice in kernels/cuda: cuBLAS
// GEMMs and our own kernels on one stream). The model (runtime/model) is written once against
// this interface, so the cpu and cuda backends run the same layers, stash slots and pass order,
// and their losses and weights can be compared number for number.
//
// Contracts:
// - Every math call has the contract of the kernels/cpu function of the same name (Kernels.h:
//   row-major float buffers, [out×in] weights, `...BackwardWeight` ADDS into its gradient
//   buffers, `accumulate` adds instead of writing). All pointers are this device's memory.
// - Work is ordered: calls run in issue order on the device's one stream (the host device runs
//   them at once). Nothing returns to the host until download(), which waits (or readBack(), for
//   memory whose writers are known to have finished).
// - Errors: a device that fails (CUDA error, out of memory) throws DeviceError with the driver's
//   message. Throws stay inside the runtime: the executor turns them into a failed op.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kernels/cpu/Attention.h"

namespace ps::kernels {

// Precision of the GEMM inputs. Weights, activations and accumulation stay fp32 either way;
// Bf16 rounds the GEMM operands to bfloat16 (tensor cores, fp32 accumulate).
enum class DType { Fp32, Bf16 };
std::string_view dtypeName(DType type);  // "fp32" | "bf16"

class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ComputeDevice {
 public:
  virtual ~ComputeDevice() = default;

  // "cpu", or the CUDA device's name ("NVIDIA H200").
  virtual std::string name() const = 0;
  // True when the caller may dereference this device's pointers directly.
  virtual bool isHost() const = 0;
  virtual DType dtype() const { return DType::Fp32; }

  // --- memory (bytes; allocations are zeroed and at least 256-byte aligned)
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* ptr, std::size_t bytes) noexcept = 0;
  // Device to device on this device.
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // Host to device. The host buffer may be reused as soon as the call returns.
  virtual void upload(void* dst, const void* hostSrc, std::size_t bytes) = 0;
  // Device to host; waits for every earlier call to finish.
  virtual void download(void* hostDst, const void* src, std::size_t bytes) = 0;
  // Device to host for memory whose writers are already known to have finished (an event
  // recorded after them has completed): copies WITHOUT waiting for the rest of the device's
  // queue, and returns once the bytes are in hostDst. Any thread may call it. Reading memory
  // that queued work still writes gives undefined bytes.
  virtual void readBack(void* hostDst, const void* src, std::size_t bytes) = 0;
  // Waits for every earlier call to finish.
  virtual void synchronize() = 0;
  virtual void fill(float* x, float value, long n) = 0;

  // --- elementwise
  virtual void residualAdd(const float* a, const float* b, float* out, long n) = 0;
  virtual void axpy(float alpha, const float* x, float* y, long n) = 0;
  virtual void geluForward(const float* x, float* y, long n) = 0;
  virtual void geluBackward(const float* x, const float* dy, float* dx, long n,
                            bool accumulate) = 0;
  // Leaky integrate-and-fire firing rates over `steps` time steps and their surrogate gradient
  // (kernels/cpu/Lif.h: constants and contracts).
  virtual void lifForward(const float* h, float* rate, long n, int steps) = 0;
  virtual void lifBackward(const float* h, const float* dRate, float* dh, long n, int steps,
                           bool accumulate) = 0;

  // --- linear Y = X·Wᵀ + b
  virtual void linearForward(const float* X, const float* W, const float* b, float* Y, int rows,
                             int in, int out) = 0;
  virtual void linearBackwardInput(const float* dY, const float* W, float* dX, int rows, int in,
                                   int out, bool accumulate) = 0;
  virtual void linearBackwardWeight(const float* dY, const float* X, float* dW, float* db, int rows,
                                    int in, int out) = 0;

  // --- layer norm
  virtual void layerNormForward(const float* x, const float* gamma, const float* beta, float* y,
                                float* mean, float* rstd, int rows, int cols) = 0;
  virtual void layerNormBackwardInput(const float* dy, const float* x, const float* gamma,
                                      const float* mean, const float* rstd, float* dx, int rows,
                                      int cols, bool accumulate) = 0;
  virtual void layerNormBackwardWeight(const float* dy, const float* x, const float* mean,
                                       const float* rstd, float* dgamma, float* dbeta, int rows,
                                       int cols) = 0;

  // --- causal multi-head self-attention (shapes and buffers as in kernels/cpu/Attention.h)
  virtual void attentionForward(const AttentionShape& s, const float* x, const AttentionWeights& w,
                                const AttentionSaved& saved, float* out) = 0;
  virtual void attentionBackwardInput(const AttentionShape& s, const AttentionWeights& w,
                                      const AttentionSaved& saved, const float* dOut, float* dQkv,
                                      float* dX, float* scratch, bool accumulate) = 0;
  virtual void attentionBackwardWeight(const AttentionShape& s, const float* x, const float* ctx,
                                       const float* dOut, const float* dQkv,
                                       const AttentionGrads& g) = 0;

  // --- loss head (mean squared error)
  // *loss (device memory, one double) = (1/n) Σ (y − t)².
  virtual void mseForward(const float* y, const float* target, long n, double* loss) = 0;
  // dy = scale · 2(y − t)/n.
  virtual void mseBackward(const float* y, const float* target, float* dy, long n, float scale) = 0;

  // --- optimizers, elementwise over n parameters
  // velocity null: p −= lr·g; else v = momentum·v + g, p −= lr·v.
  virtual void sgdStep(float* params, const float* grads, float* velocity, long n, float lr,
                       float momentum) = 0;
  // m = β1·m + (1−β1)·g; v = β2·v + (1−β2)·g²; p −= lr·(m·c1)/(√(v·c2) + eps), where c1, c2 are
  // the bias corrections 1/(1−β1ᵗ), 1/(1−β2ᵗ) computed by the caller.
  virtual void adamStep(float* params, const float* grads, float* m, float* v, long n, float lr,
                        float beta1, float beta2, float eps, float c1, float c2) = 0;
};

// The process-wide host device (stateless, thread-safe).
ComputeDevice& hostDevice();

}  // namespace ps::kernels
