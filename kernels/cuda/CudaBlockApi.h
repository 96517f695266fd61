#pragma once
// The CUDA runtime and driver calls behind one CudaDevice's BlockCache (kernels/cuda/
// BlockCache.h: the Api it names, the rules and why). Its out-of-memory retry waits through the
// device's StreamWaits, so that an aborted run stops it.

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/CudaWaits.h"

struct CUctx_st;  // CUcontext is CUctx_st*; callers need no driver API header

namespace ps::kernels {

struct CudaBlockApi {
  using Event = cudaEvent_t;
  using Stream = cudaStream_t;
  using Context = CUctx_st*;
  cuda::StreamWaits* waits = nullptr;
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

}  // namespace ps::kernels
