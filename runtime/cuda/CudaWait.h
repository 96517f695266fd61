#pragma once
// Waiting for a CUDA event from the host. Plain cudaEventSynchronize, unless a poll is given:
// then the wait polls the event and asks `aborting` in between, so that a run whose GPU waits on
// a dead peer can stop (the poll aborts NCCL, or says the run is over) instead of hanging.

#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "trace/Result.h"

namespace ps::runtime {

inline Status waitForEvent(cudaEvent_t event, const std::function<bool()>& aborting,
                           const char* what) {
  if (!aborting) {
    if (const cudaError_t rc = cudaEventSynchronize(event); rc != cudaSuccess)
      return Error{std::string(what) + ": " + cudaGetErrorString(rc)};
    return {};
  }
  for (int spins = 0;; ++spins) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaSuccess) return {};
    if (rc != cudaErrorNotReady) return Error{std::string(what) + ": " + cudaGetErrorString(rc)};
    if (aborting()) return Error{std::string(what) + ": the run was aborted"};
    std::this_thread::sleep_for(std::chrono::microseconds(spins < 100 ? 20 : 500));
  }
}

}  // namespace ps::runtime
