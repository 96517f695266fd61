// CudaDevice: opening the device (context, stream, cuBLAS), the caching allocator and the copies.
// The math lives in the other kernels/cuda/*.cu files, one per family of kernels.

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "kernels/cuda/CudaCommon.cuh"
#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaDriverApi.h"

namespace ps::kernels {
namespace {

using cuda::checkCublas;
using cuda::checkCuda;
using cuda::driverApi;

// cuBLAS gets a fixed workspace of its own: with a fixed workspace and no atomics its algorithm
// choice, and so its results, repeat from run to run.
constexpr std::size_t kBlasWorkspaceBytes = 32u << 20;
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
        CudaBlockApi{this}, context_, primary_, stream_, "CUDA device " + std::to_string(device_));
    checkCuda(cudaEventCreateWithFlags(&streamDone_, cudaEventDisableTiming), "cudaEventCreate");
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    name_ = prop.name;
    // Created with the device's context current: cuBLAS's own resources belong to it.
    cublasHandle_t handle = nullptr;
    checkCublas(cuda::cublas().create(&handle), "cublasCreate");
    blas_ = handle;
    checkCublas(cuda::cublas().setStream(blas_, stream_), "cublasSetStream");
    // cuBLAS picks its kernels' grid sizes for the SMs it believes it has: on a green context,
    // the share's, so that it does not size work for SMs it cannot get.
    if (smCount_ > 0)
      checkCublas(cuda::cublas().setSmCountTarget(blas_, static_cast<int>(smCount_)),
                  "cublasSetSmCountTarget");
    checkCuda(cudaMalloc(&blasWorkspace_, kBlasWorkspaceBytes),
              "cudaMalloc of the cuBLAS workspace");
    checkCublas(cuda::cublas().setWorkspace(blas_, blasWorkspace_, kBlasWorkspaceBytes),
                "cublasSetWorkspace");
    // Fp32 is the reference path: default math never uses TF32 (only CUBLAS_TF32_TENSOR_OP_MATH
    // or a compute type that asks for it would). Bf16 asks for tensor cores by its input type.
    checkCublas(cuda::cublas().setMathMode(blas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    checkCublas(cuda::cublas().setAtomicsMode(blas_, CUBLAS_ATOMICS_NOT_ALLOWED),
                "cublasSetAtomicsMode");
    checkCublas(cuda::cublas().setPointerMode(blas_, CUBLAS_POINTER_MODE_HOST),
                "cublasSetPointerMode");
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
  if (streamDone_) cudaEventDestroy(streamDone_);
  streamDone_ = nullptr;
  {
    std::lock_guard<std::mutex> lock(stagingMutex_);
    for (StagingSlot& slot : staging_) {
      if (slot.host) cudaFreeHost(slot.host);
      if (slot.done) cudaEventDestroy(slot.done);
      slot = StagingSlot{};
    }
  }
  if (blas_) cuda::cublas().destroy(blas_);
  if (blasWorkspace_) cudaFree(blasWorkspace_);
  if (stream_ && ownsStream_) cudaStreamDestroy(stream_);
  blas_ = nullptr;
  blasWorkspace_ = nullptr;
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
  return (blocks_ ? blocks_->reservedBytes() : 0) + (blasWorkspace_ ? kBlasWorkspaceBytes : 0);
}

CudaDevice::Scratch::Scratch(CudaDevice& device, std::size_t bytes)
    : device_(device),
      ptr_(device.blocks_->take(cuda::roundUp(bytes > 0 ? bytes : 1))),
      bytes_(bytes) {}

CudaDevice::Scratch::~Scratch() {
  device_.release(ptr_, bytes_);
}

}  // namespace ps::kernels
