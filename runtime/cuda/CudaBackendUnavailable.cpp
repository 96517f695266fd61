// The cuda backend in a build without the CUDA toolkit (PIPESCOPE_WITH_CUDA off): it exists and
// says why it cannot run, so callers need no #ifdef.
#include "runtime/cuda/CudaBackend.h"

namespace ps::runtime {

namespace {
constexpr const char* kReason = "built without CUDA (configure with nvcc on PATH to enable it)";
}

CudaAvailability cudaAvailability() {
  return {{}, kReason};
}

Result<CudaPlanCheck> checkCudaPlan(const Plan&, const CpuRunOptions&) {
  return Error{std::string("no CUDA device (") + kReason + ")"};
}

Result<CpuRunResult> runOnCuda(const Plan&, const OpGraph&, const CpuRunOptions&,
                               trace::TraceWriter*) {
  return Error{std::string("no CUDA device (") + kReason + ")"};
}

std::vector<CudaDeviceInfo> cudaRankDevices(int) {
  return {};
}

CudaPlacementNote describeCudaPlacement(int, bool) {
  return {};
}

Result<CostModel> calibrateCudaCosts(const ModelConfig&, const OptimizerConfig&, CalibrationOptions,
                                     kernels::DType, int) {
  return Error{std::string("no CUDA device (") + kReason + ")"};
}

}  // namespace ps::runtime
