#pragma once
// One CUDA device as a ComputeDevice (contracts in kernels/ComputeDevice.h): cuBLAS GEMMs and our
// own kernels, all ordered on ONE non-blocking stream that the device owns, so issue order is
// execution order and a released block can be handed out again at once (stream order).
//
// Numbers: every kernel computes what its kernels/cpu twin computes (same formulas, same
// precision of the sums); only the order of float additions inside GEMMs and row reductions
// differs. Fp32 GEMMs never use TF32; Bf16 rounds GEMM operands to bfloat16 and accumulates in
// fp32. Reductions have a fixed order (no float atomics), so two runs give identical numbers.
//
// Threads: memory calls (allocate/allocateFor/release/reservedBytes) and readBack are
// thread-safe; math calls and the other copies on one device come from one thread at a time (the
// cuBLAS handle and the stream are shared). Every public call except release first makes this
// device's context current on the calling thread (makeCurrent), so ranks on other threads may use
// other GPUs; release leaves the caller's current context as it found it.
//
// Contexts: the device runs in the context of its stream: the device's primary context for a
// stream of our own, or the green context given with a stream made by cuGreenCtxStreamCreate (a
// share of the SMs, runtime/cuda/CudaSmSplit.cpp). cuBLAS is then told how many SMs it has.
//
// Allocator: kernels/cuda/BlockCache.h (blocks cached by rounded size, each free one with an
// event recorded at its release; cudaMalloc/cudaFree in the primary context, so that another
// rank's thread never makes this device's green context current).
//
// Parts: the device owns its context, stream, cuBLAS handle (CudaBlasHandle.h), block cache
// (CudaBlockApi.h), waits (CudaWaits.h) and host transfers (CudaTransfers.h). Its math calls make
// the context current and hand the work to the kernel families, free functions over the device's
// queue (CudaQueue.cuh: CudaGemm, CudaLinear, CudaAttention, CudaLayerNorm, CudaElementwise,
// CudaLossOptim), as CpuDevice hands its calls to kernels/cpu.

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/BlockCache.h"
#include "kernels/cuda/CudaBlasHandle.h"
#include "kernels/cuda/CudaBlockApi.h"
#include "kernels/cuda/CudaTransfers.h"
#include "kernels/cuda/CudaWaits.h"

struct CUctx_st;       // CUcontext is CUctx_st*; callers need no driver API header
struct CUgreenCtx_st;  // CUgreenCtx is CUgreenCtx_st*

namespace ps::kernels {
namespace cuda {
struct CudaQueue;
}

class CudaDevice final : public ComputeDevice {
 public:
  // Throws DeviceError when the device cannot be opened (no such device, no driver). `stream`:
  // a stream of the caller's to run on instead of one of our own; it must be on device
  // `deviceIndex` and outlive the device. `green`: the green context (a share of the SMs) that
  // made `stream` with cuGreenCtxStreamCreate, if it did; the device then works in it. Given by
  // the caller because the driver cannot be asked: cuStreamGetCtx answered NOT_SUPPORTED for
  // green streams on older 12.x drivers, and its v2 names the primary context.
  CudaDevice(int deviceIndex, DType dtype, cudaStream_t stream = nullptr,
             CUgreenCtx_st* green = nullptr);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  cudaStream_t stream() const { return stream_; }
  int deviceIndex() const { return device_; }
  // Makes this device's context (the stream's: primary or green) current on the calling thread
  // when another one is, so that what the caller creates next with the runtime API (events,
  // streams) belongs to it. Throws DeviceError when the driver refuses.
  void makeCurrent() const;
  // Makes the device's primary context current on the calling thread (green contexts share its
  // memory): for a thread that set up ranks in their green contexts and must not keep one current
  // while the rank's own thread works in it.
  void usePrimaryContext() const;
  // SMs this device's context may use: the green context's share, or 0 for the whole device.
  std::size_t smCount() const { return smCount_; }

  // A block of `bytes` (rounded up to 256, not zeroed: the caller overwrites all of it) to be
  // written by work on `user`, a stream of any thread on this or another device; thread-safe,
  // and never makes this device's (green) context current on the calling thread. A reused
  // cached block makes `user` wait (cudaStreamWaitEvent) on the event recorded when the block
  // was released, i.e. only on its previous users; a fresh cudaMalloc block needs no wait. The
  // host never waits (except for the out-of-memory retry, see setLiveChannels). Give it back
  // with release() from the owner's thread once this device's stream is ordered after `user`'s
  // work on it (e.g. it waited on an event recorded on `user` after the write).
  void* allocateFor(std::size_t bytes, cudaStream_t user);
  // Bytes held from cudaMalloc: live blocks, cached free blocks and the cuBLAS workspace.
  std::size_t reservedBytes() const;
  // Makes every wait of the device (download, synchronize, pinned uploads, a staging slot still in
  // use, the out-of-memory retry) poll, calling `aborting` between polls: when it returns true
  // they throw DeviceError instead of waiting on (for a GPU stuck behind a dead peer). Set before
  // the device is shared between threads.
  void setWaitPoll(std::function<bool()> aborting) { waits_.setPoll(std::move(aborting)); }
  // NCCL communicators are open on this GPU: from now on out of memory stops the run with the
  // numbers instead of giving cached blocks back (cudaFree may wait for every NCCL kernel on the
  // GPU, issue 32 §6).
  void setLiveChannels(bool live) { blocks_->setLiveChannels(live); }
  // Pins the upload/download staging ring once, at setup, for transfers of up to `largest` bytes
  // (at most 16 MiB a slot; larger ones go in pieces): no cudaHostAlloc/cudaFreeHost, which may
  // synchronise the device, happens once the run is going. Waits for the ring's pending copies.
  void fixStaging(std::size_t largest);

  std::string name() const override { return name_; }
  bool isHost() const override { return false; }
  DType dtype() const override { return dtype_; }

  void* allocate(std::size_t bytes) override;
  void release(void* ptr, std::size_t bytes) noexcept override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void upload(void* dst, const void* hostSrc, std::size_t bytes) override;
  void download(void* hostDst, const void* src, std::size_t bytes) override;
  void readBack(void* hostDst, const void* src, std::size_t bytes) override;
  void synchronize() override;
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

 private:
  void destroy() noexcept;
  // What the kernel families issue with: the stream, cuBLAS, the GEMM precision, the cache.
  cuda::CudaQueue queue();

  int device_;
  DType dtype_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  bool ownsStream_ = true;
  CUctx_st* context_ = nullptr;  // the stream's context: primary, or converted from a green one
  std::size_t smCount_ = 0;      // the green context's SMs; 0 = the whole device
  CUctx_st* primary_ = nullptr;  // the device's primary context: where memory is allocated

  cuda::StreamWaits waits_;
  cuda::BlasHandle blas_;
  std::unique_ptr<cuda::BlockCache<CudaBlockApi>> blocks_;
  cuda::HostTransfers transfers_{waits_};
};

}  // namespace ps::kernels
