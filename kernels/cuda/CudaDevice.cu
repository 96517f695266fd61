// CudaDevice: opening the device (context, stream, cuBLAS, cache, waits, transfers) and closing
// it, its memory calls, and the ComputeDevice calls, each making the device's context current and
// handing the work to its kernel family (kernels/cuda/Cuda<Family>.cu) or its transfers.

#include <string>

#include "kernels/cuda/CudaAttention.cuh"
#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaDriverApi.h"
#include "kernels/cuda/CudaElementwise.cuh"
#include "kernels/cuda/CudaLayerNorm.cuh"
#include "kernels/cuda/CudaLinear.cuh"
#include "kernels/cuda/CudaLossOptim.cuh"

namespace ps::kernels {
namespace {

using cuda::checkCuda;
using cuda::driverApi;
using cuda::roundUp;

// Driver API calls go through kernels/cuda/CudaDriverApi.h (looked up at run time, no libcuda
// link), so that binaries load on machines without a driver; there the constructor has already
// thrown "no CUDA device" before any of them is needed.
void checkDriver(CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (const auto& api = driverApi(); api.getErrorName) api.getErrorName(rc, &name);
  throw DeviceError(std::string(what) + ": " +
                    (name ? name : "driver error " + std::to_string(static_cast<int>(rc))));
}

}  // namespace

CudaDevice::CudaDevice(int deviceIndex, DType dtype, cudaStream_t stream, CUgreenCtx_st* green)
    : device_(deviceIndex), dtype_(dtype), stream_(stream), ownsStream_(stream == nullptr) {
  try {
    int count = 0;  // preset: some drivers leave it untouched on error
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
      cudaGetLastError();
      throw DeviceError(std::string("no CUDA device (") + cudaGetErrorString(rc) + ")");
    }
    if (deviceIndex < 0 || deviceIndex >= count)
      throw DeviceError("no CUDA device " + std::to_string(deviceIndex) + " (" +
                        std::to_string(count) + " visible)");
    // Makes the primary context current (and creates it): our own stream is made in it.
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    // Non-blocking: the legacy default stream of other libraries must not serialise with ours
    // (and readBack, which runs on it, must not wait for our queue).
    if (ownsStream_)
      checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    // The device works in its stream's context, so that our kernels and cuBLAS's run on the
    // green context's SMs: for a green stream the context converted from the green context its
    // creator names (the driver's answer for the stream is unreliable, see the header), for any
    // other stream the one cuStreamGetCtx names.
    const auto& api = driverApi();
    if (!api.streamGetCtx || !api.ctxGetCurrent || !api.ctxSetCurrent)
      throw DeviceError("the CUDA driver lacks cuStreamGetCtx/cuCtxGetCurrent/cuCtxSetCurrent");
    checkDriver(api.ctxGetCurrent(&primary_), "cuCtxGetCurrent");  // cudaSetDevice made it so
    CUcontext context = nullptr;
    if (green) {
      if (!api.ctxFromGreenCtx || !api.greenCtxGetDevResource)
        throw DeviceError("the CUDA driver lacks cuCtxFromGreenCtx/cuGreenCtxGetDevResource");
      checkDriver(api.ctxFromGreenCtx(&context, green), "cuCtxFromGreenCtx");
      CUdevResource sms{};
      checkDriver(api.greenCtxGetDevResource(green, &sms, CU_DEV_RESOURCE_TYPE_SM),
                  "cuGreenCtxGetDevResource");
      smCount_ = sms.sm.smCount;
    } else {
      checkDriver(api.streamGetCtx(reinterpret_cast<CUstream>(stream_), &context),
                  "cuStreamGetCtx");
    }
    context_ = context;
    makeCurrent();
    int owner = -1;
    checkCuda(cudaGetDevice(&owner), "cudaGetDevice");
    if (owner != device_)
      throw DeviceError("the stream given for CUDA device " + std::to_string(device_) +
                        " belongs to device " + std::to_string(owner));
    blocks_ = std::make_unique<cuda::BlockCache<CudaBlockApi>>(
        CudaBlockApi{&waits_}, context_, primary_, stream_,
        "CUDA device " + std::to_string(device_));
    waits_.open(stream_);
    transfers_.open(stream_);
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    name_ = prop.name;
    blas_.open(stream_, smCount_);
  } catch (...) {
    destroy();
    throw;
  }
}

CudaDevice::~CudaDevice() {
  destroy();
}

void CudaDevice::destroy() noexcept {
  const auto& api = driverApi();
  if (context_ && api.ctxSetCurrent)
    api.ctxSetCurrent(static_cast<CUcontext>(context_));
  else
    cudaSetDevice(device_);
  // Everything queued may still read our blocks and staging slots: wait before giving them back.
  if (stream_) cudaStreamSynchronize(stream_);
  blocks_.reset();  // frees every block, in the primary context
  waits_.close();
  transfers_.close();
  blas_.close();
  if (stream_ && ownsStream_) cudaStreamDestroy(stream_);
  stream_ = nullptr;
  // A green context is its owner's to destroy, perhaps right after us: leave the device's
  // primary context current on this thread rather than one that may soon dangle.
  CUcontext current = nullptr;
  if (smCount_ > 0 && api.ctxGetCurrent && api.ctxGetCurrent(&current) == CUDA_SUCCESS &&
      current == context_)
    cudaSetDevice(device_);
  cudaGetLastError();  // a destructor reports nothing; leave no stale error behind
}

void CudaDevice::makeCurrent() const {
  // cuCtxGetCurrent is a thread-local read; a switch only when another context is current
  // (another rank's GPU, or the primary context after someone's cudaSetDevice).
  CUcontext current = nullptr;
  if (context_) {  // the constructor made sure the driver has both functions
    const auto& api = driverApi();
    if (api.ctxGetCurrent(&current) == CUDA_SUCCESS && current == context_) return;
    const CUresult rc = api.ctxSetCurrent(static_cast<CUcontext>(context_));
    if (rc != CUDA_SUCCESS)
      checkDriver(rc, ("cuCtxSetCurrent (CUDA device " + std::to_string(device_) + ")").c_str());
    return;
  }
  // Only while the constructor has no context yet.
  int device = -1;
  if (cudaGetDevice(&device) == cudaSuccess && device == device_) return;
  const cudaError_t rc = cudaSetDevice(device_);
  if (rc != cudaSuccess) cuda::throwCuda(rc, "cudaSetDevice(" + std::to_string(device_) + ")");
}

void CudaDevice::usePrimaryContext() const {
  const auto& api = driverApi();
  CUcontext current = nullptr;
  if (!primary_ || api.ctxGetCurrent(&current) != CUDA_SUCCESS || current == primary_) return;
  checkDriver(
      api.ctxSetCurrent(static_cast<CUcontext>(primary_)),
      ("cuCtxSetCurrent (the primary context of CUDA device " + std::to_string(device_) + ")")
          .c_str());
}

std::size_t CudaDevice::reservedBytes() const {
  return (blocks_ ? blocks_->reservedBytes() : 0) + blas_.reservedBytes();
}

cuda::CudaQueue CudaDevice::queue() {
  return {stream_, blas_.handle(), dtype_, blocks_.get()};
}

// --- memory (BlockCache.h: the rules and why)

void* CudaDevice::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  makeCurrent();
  const std::size_t size = roundUp(bytes);
  void* p = blocks_->take(size);
  // Zeroed in stream order: a reused block is cleared only after its last user has run.
  const cudaError_t rc = cudaMemsetAsync(p, 0, size, stream_);
  if (rc != cudaSuccess) {
    release(p, bytes);
    checkCuda(rc, "cudaMemsetAsync");
  }
  return p;
}

void* CudaDevice::allocateFor(std::size_t bytes, cudaStream_t user) {
  if (bytes == 0) return nullptr;
  // No makeCurrent: the caller is usually another rank's thread, and this device's context may
  // be a green one, current on our own thread (issue 32 §2).
  return blocks_->takeFor(roundUp(bytes), user);
}

void CudaDevice::release(void* ptr, std::size_t) noexcept {
  // No cudaFree here (it would wait for the whole device): the block goes back to the cache
  // with an event recorded on our stream, in our context, which the cache makes current for the
  // call only (release must not change the caller's context).
  if (ptr && blocks_) blocks_->release(ptr);
}

// --- copies and waits (CudaTransfers.h, CudaWaits.h)

void CudaDevice::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  checkCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_),
            "cudaMemcpyAsync (device to device)");
}

void CudaDevice::upload(void* dst, const void* hostSrc, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  transfers_.upload(dst, hostSrc, bytes);
}

void CudaDevice::download(void* hostDst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  transfers_.download(hostDst, src, bytes);
}

void CudaDevice::readBack(void* hostDst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  cuda::readBack(hostDst, src, bytes);
}

void CudaDevice::fixStaging(std::size_t largest) {
  makeCurrent();
  transfers_.fixStaging(largest);
}

void CudaDevice::synchronize() {
  makeCurrent();
  waits_.waitForStream("synchronize");
}

// --- math. A call with no work returns before makeCurrent, so it leaves the caller's context
// alone; the family functions check the same bounds for their own callers.

void CudaDevice::fill(float* x, float value, long n) {
  if (n <= 0) return;
  makeCurrent();
  cuda::fill(stream_, x, value, n);
}

void CudaDevice::residualAdd(const float* a, const float* b, float* out, long n) {
  if (n <= 0) return;
  makeCurrent();
  cuda::residualAdd(stream_, a, b, out, n);
}

void CudaDevice::axpy(float alpha, const float* x, float* y, long n) {
  if (n <= 0) return;
  makeCurrent();
  cuda::axpy(stream_, alpha, x, y, n);
}

void CudaDevice::geluForward(const float* x, float* y, long n) {
  if (n <= 0) return;
  makeCurrent();
  cuda::geluForward(stream_, x, y, n);
}

void CudaDevice::geluBackward(const float* x, const float* dy, float* dx, long n, bool accumulate) {
  if (n <= 0) return;
  makeCurrent();
  cuda::geluBackward(stream_, x, dy, dx, n, accumulate);
}

void CudaDevice::lifForward(const float* h, float* rate, long n, int steps) {
  if (n <= 0) return;
  makeCurrent();
  cuda::lifForward(stream_, h, rate, n, steps);
}

void CudaDevice::lifBackward(const float* h, const float* dRate, float* dh, long n, int steps,
                             bool accumulate) {
  if (n <= 0) return;
  makeCurrent();
  cuda::lifBackward(stream_, h, dRate, dh, n, steps, accumulate);
}

void CudaDevice::linearForward(const float* X, const float* W, const float* b, float* Y, int rows,
                               int in, int out) {
  if (rows <= 0 || out <= 0) return;
  makeCurrent();
  cuda::linearForward(queue(), X, W, b, Y, rows, in, out);
}

void CudaDevice::linearBackwardInput(const float* dY, const float* W, float* dX, int rows, int in,
                                     int out, bool accumulate) {
  if (rows <= 0 || in <= 0) return;
  makeCurrent();
  cuda::linearBackwardInput(queue(), dY, W, dX, rows, in, out, accumulate);
}

void CudaDevice::linearBackwardWeight(const float* dY, const float* X, float* dW, float* db,
                                      int rows, int in, int out) {
  if (rows <= 0 || out <= 0) return;
  makeCurrent();
  cuda::linearBackwardWeight(queue(), dY, X, dW, db, rows, in, out);
}

void CudaDevice::layerNormForward(const float* x, const float* gamma, const float* beta, float* y,
                                  float* mean, float* rstd, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  makeCurrent();
  cuda::layerNormForward(stream_, x, gamma, beta, y, mean, rstd, rows, cols);
}

void CudaDevice::layerNormBackwardInput(const float* dy, const float* x, const float* gamma,
                                        const float* mean, const float* rstd, float* dx, int rows,
                                        int cols, bool accumulate) {
  if (rows <= 0 || cols <= 0) return;
  makeCurrent();
  cuda::layerNormBackwardInput(stream_, dy, x, gamma, mean, rstd, dx, rows, cols, accumulate);
}

void CudaDevice::layerNormBackwardWeight(const float* dy, const float* x, const float* mean,
                                         const float* rstd, float* dgamma, float* dbeta, int rows,
                                         int cols) {
  if (rows <= 0 || cols <= 0) return;
  makeCurrent();
  cuda::layerNormBackwardWeight(queue(), dy, x, mean, rstd, dgamma, dbeta, rows, cols);
}

void CudaDevice::attentionForward(const AttentionShape& s, const float* x,
                                  const AttentionWeights& w, const AttentionSaved& saved,
                                  float* out) {
  if (static_cast<int>(s.rows()) <= 0) return;  // as the family function: no rows, no work
  makeCurrent();
  cuda::attentionForward(queue(), s, x, w, saved, out);
}

void CudaDevice::attentionBackwardInput(const AttentionShape& s, const AttentionWeights& w,
                                        const AttentionSaved& saved, const float* dOut, float* dQkv,
                                        float* dX, float* scratch, bool accumulate) {
  if (static_cast<int>(s.rows()) <= 0) return;  // as the family function: no rows, no work
  makeCurrent();
  cuda::attentionBackwardInput(queue(), s, w, saved, dOut, dQkv, dX, scratch, accumulate);
}

void CudaDevice::attentionBackwardWeight(const AttentionShape& s, const float* x, const float* ctx,
                                         const float* dOut, const float* dQkv,
                                         const AttentionGrads& g) {
  const int H = s.hidden;
  const int R = static_cast<int>(s.rows());
  linearBackwardWeight(dOut, ctx, g.wo, g.bo, R, H, H);
  linearBackwardWeight(dQkv, x, g.wqkv, g.bqkv, R, H, 3 * H);
}

void CudaDevice::mseForward(const float* y, const float* target, long n, double* loss) {
  makeCurrent();
  cuda::mseForward(queue(), y, target, n, loss);
}

void CudaDevice::mseBackward(const float* y, const float* target, float* dy, long n, float scale) {
  if (n <= 0) return;
  makeCurrent();
  cuda::mseBackward(stream_, y, target, dy, n, scale);
}

void CudaDevice::sgdStep(float* params, const float* grads, float* velocity, long n, float lr,
                         float momentum) {
  if (n <= 0) return;
  makeCurrent();
  cuda::sgdStep(stream_, params, grads, velocity, n, lr, momentum);
}

void CudaDevice::adamStep(float* params, const float* grads, float* m, float* v, long n, float lr,
                          float beta1, float beta2, float eps, float c1, float c2) {
  if (n <= 0) return;
  makeCurrent();
  cuda::adamStep(stream_, params, grads, m, v, n, lr, beta1, beta2, eps, c1, c2);
}

}  // namespace ps::kernels
