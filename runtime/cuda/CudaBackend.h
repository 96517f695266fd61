#pragma once
// The cuda backend's front door (DESIGN §3): which CUDA devices this process can use, and running
// a plan on them. Declared in every build; without CUDA (PIPESCOPE_WITH_CUDA off) availability
// says "built without CUDA" and runOnCuda refuses with that reason, so callers never need an
// #ifdef. UI and app ask here, never kernels/.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/cuda/CommOrder.h"
#include "runtime/exec/Calibrate.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::trace {
class TraceWriter;
}

namespace ps::runtime {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::int64_t memoryBytes = 0;
  int smMajor = 0, smMinor = 0;
  int smCount = 0;
};

struct CudaAvailability {
  std::vector<CudaDeviceInfo> devices;
  std::string reason;  // why there is none: "built without CUDA", "no CUDA device (<driver>)"
  bool available() const { return !devices.empty(); }
};

// Never fails and never leaves a CUDA error behind: any error from the driver means no device.
CudaAvailability cudaAvailability();

// What runOnCuda checks before it launches anything: a device, the placement of ranks on GPUs,
// that each GPU's ranks fit its free memory (the estimate of DeviceFit.h), and for NCCL (one GPU
// per rank) a deadlock-free channel order. runPlan calls it before it opens the file, so a plan
// that cannot run leaves nothing behind.
struct CudaPlanCheck {
  std::vector<int> deviceOfRank;  // CUDA device index per rank
  std::vector<int> devicesUsed;   // sorted, unique
  bool nccl = false;              // one GPU per rank: NCCL channels; else peer copies
  CommOrder order;                // the NCCL channel order (nccl only)
};
[[nodiscard]] Result<CudaPlanCheck> checkCudaPlan(const Plan& plan, const CpuRunOptions& options);

// Trains the model pipelined by `plan` on the visible CUDA devices: one GPU per rank when there
// are at least P, ranks sharing devices otherwise. Same contract as runOnCpuThreads (setup
// errors as an error; failures while running as a result with status Failed), plus: no device
// is an error "no CUDA device (…)" before anything is written.
Result<CpuRunResult> runOnCuda(const Plan& plan, const OpGraph& graph, const CpuRunOptions& options,
                               trace::TraceWriter* writer);

// The device each of `ranks` ranks would run on (placement as runOnCuda does it); empty without a
// device. For the run's rank rows (device name, memory capacity) before it starts.
std::vector<CudaDeviceInfo> cudaRankDevices(int ranks);

// How runOnCuda will place `ranks` ranks, in words for the run's config: the transport
// ("nccl", one GPU per rank, or "peer-copy", ranks sharing GPUs) and, with `smSplit`, whether
// green contexts will split the shared GPUs' SMs ("green contexts on GPU 0: 4 ranks x 32 of its
// 132 SMs (shares in multiples of 8)", SmShareSize.h)
// or why not ("shared SMs: <driver's reason>").
struct CudaPlacementNote {
  std::string transport;
  std::string smSplit;  // empty without --sm-split
};
CudaPlacementNote describeCudaPlacement(int ranks, bool smSplit);

// calibrateCpuCosts on the first GPU: every layer's F, I, W and the optimizer step timed by CUDA
// events around the pass (options.device and timePass are filled in here). `smShareOf` > 1: on
// one of that many equal SM shares (green contexts), as a rank of a --sm-split run sees the GPU.
[[nodiscard]] Result<CostModel> calibrateCudaCosts(const ModelConfig& model,
                                                   const OptimizerConfig& optimizer,
                                                   CalibrationOptions options, kernels::DType dtype,
                                                   int smShareOf = 1);

}  // namespace ps::runtime
