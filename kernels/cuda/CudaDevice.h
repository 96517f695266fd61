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

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/BlockCache.h"

struct cublasContext;  // cublasHandle_t is cublasContext*; callers need no cuBLAS header
struct CUctx_st;       // CUcontext is CUctx_st*; callers need no driver API header
struct CUgreenCtx_st;  // CUgreenCtx is CUgreenCtx_st*

namespace ps::kernels {

class CudaDevice;

// The CUDA runtime behind BlockCache (kernels/cuda/CudaDeviceMemory.cu).
struct CudaBlockApi {
  using Event = cudaEvent_t;
  using Stream = cudaStream_t;
  using Context = CUctx_st*;
  CudaDevice* device = nullptr;
  Context current();
  bool setCurrent(Context context);
  bool malloc(void** p, std::size_t bytes);
  void free(void* p) noexcept;
  bool createEvent(Event* event);
  bool record(Event event, Stream stream);
  void wait(Stream waiter, Event event);
  void waitFor(Event event);
  void destroyEvent(Event event) noexcept;
};

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
  void setWaitPoll(std::function<bool()> aborting) { waitPoll_ = std::move(aborting); }
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
  // Row-major C = alpha·op(A)·op(B) + beta·C (op = transpose when trans*), or `batch` such
  // products at fixed element strides. Fp32: cuBLAS SGEMM; Bf16: operands rounded first.
  struct GemmCall {
    bool transA = false, transB = false;
    int m = 0, n = 0, k = 0;
    float alpha = 1.0f;
    const float* A = nullptr;
    int lda = 0;
    long long strideA = 0;
    const float* B = nullptr;
    int ldb = 0;
    long long strideB = 0;
    float beta = 0.0f;
    float* C = nullptr;
    int ldc = 0;
    long long strideC = 0;
    int batch = 1;
  };
  // Internal scratch from the caching allocator (not zeroed). Returning it right after the
  // kernels that use it are issued is safe: the next user is ordered behind them on the stream.
  class Scratch {
   public:
    Scratch(CudaDevice& device, std::size_t bytes);
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    template <typename T>
    T* as() const {
      return static_cast<T*>(ptr_);
    }

   private:
    CudaDevice& device_;
    void* ptr_;
    std::size_t bytes_;
  };

  // One slot of the pinned ring that pageable uploads and downloads go through; `done` is
  // recorded after the copy out of it, and the slot is written again only once it completed.
  struct StagingSlot {
    void* host = nullptr;
    std::size_t capacity = 0;
    cudaEvent_t done = nullptr;
    bool pending = false;
  };
  static constexpr std::size_t kStagingSlots = 4;

  // Waits for everything queued so far / for one event; polls with waitPoll_ when it is set.
  void waitForStream(const char* what);
  void waitForEvent(cudaEvent_t event, const char* what);
  void uploadStaged(void* dst, const void* hostSrc, std::size_t bytes);
  void downloadStaged(void* hostDst, const void* src, std::size_t bytes);
  // The next slot of the ring with room for `bytes` (at most its fixed capacity once fixed), its
  // previous copy completed; null when no pinned memory can be had. Caller holds stagingMutex_.
  StagingSlot* stagingSlot(std::size_t bytes);
  friend struct CudaBlockApi;
  void destroy() noexcept;
  void gemm(const GemmCall& g);
  // out2[c] += Σ_r dy[r,c]; and when x is set, out1[c] += Σ_r dy[r,c]·x̂[r,c] (layer norm).
  void columnSums(const float* dy, const float* x, const float* mean, const float* rstd,
                  float* out1, float* out2, int rows, int cols);

  int device_;
  DType dtype_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  bool ownsStream_ = true;
  CUctx_st* context_ = nullptr;  // the stream's context: primary, or converted from a green one
  std::size_t smCount_ = 0;      // the green context's SMs; 0 = the whole device
  cublasContext* blas_ = nullptr;
  void* blasWorkspace_ = nullptr;

  CUctx_st* primary_ = nullptr;  // the device's primary context: where memory is allocated
  std::unique_ptr<cuda::BlockCache<CudaBlockApi>> blocks_;
  std::mutex waitMutex_;              // guards streamDone_
  cudaEvent_t streamDone_ = nullptr;  // recorded by the polled waitForStream
  std::function<bool()> waitPoll_;

  std::mutex stagingMutex_;
  std::array<StagingSlot, kStagingSlots> staging_{};
  std::size_t nextSlot_ = 0;
  std::size_t stagingFixed_ = 0;  // the ring's capacity per slot once fixStaging ran; 0 before
};

}  // namespace ps::kernels
