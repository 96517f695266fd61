// Calibration on the cuda backend (CudaBackend.h): layers timed by CUDA events.
#include <cuda_runtime.h>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/cuda/CudaCheck.h"
#include "runtime/cuda/CudaSmSplit.h"

namespace ps::runtime {

Result<CostModel> calibrateCudaCosts(const ModelConfig& model, const OptimizerConfig& optimizer,
                                     CalibrationOptions options, kernels::DType dtype,
                                     int smShareOf) {
  const CudaAvailability avail = cudaAvailability();
  if (!avail.available()) return Error{avail.reason};
  const int gpu = avail.devices.front().index;
  std::vector<SmShare> shares;
  if (smShareOf > 1) {
    auto split = splitSms(gpu, smShareOf);
    if (!split) return Error{"calibrating on an SM share: " + split.error()};
    shares = std::move(*split);
  }
  struct Shares {  // released after the device that runs on one of them
    std::vector<SmShare>& shares;
    ~Shares() { releaseSmShares(shares); }
  } releaseShares{shares};
  try {
    const SmShare share = shares.empty() ? SmShare{} : shares.front();
    kernels::CudaDevice device(gpu, dtype, share.stream, share.context);
    struct TimingEvents {  // destroyed on every way out, also when a pass throws
      cudaEvent_t begin = nullptr, end = nullptr;
      ~TimingEvents() {
        if (begin) cudaEventDestroy(begin);
        if (end) cudaEventDestroy(end);
      }
    } events;
    cudaEvent_t& begin = events.begin;
    cudaEvent_t& end = events.end;
    device.makeCurrent();
    cudaCheck(cudaEventCreate(&begin), "cudaEventCreate");
    cudaCheck(cudaEventCreate(&end), "cudaEventCreate");
    options.device = &device;
    options.threads = 1;
    // The pass's GPU time between two events on the device's stream: what a rank's op costs once
    // the host runs ahead of the device, as it does in a run.
    options.timePass = [&](const std::function<Status()>& pass) -> Result<double> {
      cudaCheck(cudaEventRecord(begin, device.stream()), "cudaEventRecord");
      PS_TRY(pass());
      cudaCheck(cudaEventRecord(end, device.stream()), "cudaEventRecord");
      cudaCheck(cudaEventSynchronize(end), "cudaEventSynchronize");
      float ms = 0;
      cudaCheck(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
      return static_cast<double>(ms) * 1e6;
    };
    return calibrateCpuCosts(model, optimizer, options);
  } catch (const kernels::DeviceError& e) {
    return Error{std::string("calibrating on the GPU: ") + e.what()};
  }
}

}  // namespace ps::runtime
