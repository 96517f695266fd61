#include "runtime/run/BackendDescription.h"

#include "kernels/ComputeDevice.h"
#include "kernels/cpu/Gemm.h"
#include "runtime/run/Backends.h"

namespace ps::runtime {

// runtime headers default CpuRunOptions::dtype to DType{} (KernelTypes.h declares no enumerator).
static_assert(kernels::DType{} == kernels::DType::Fp32, "DType{} must stay Fp32");

std::string BackendDescription::summary() const {
  if (simd.empty()) return blas;
  return blas + ", elementwise " + simd;
}

BackendDescription describeBackend(Backend backend) {
  const BackendInfo& row = backendInfo(backend);
  return row.describe ? row.describe() : BackendDescription{};
}

std::string_view nameOfDtype(kernels::DType type) {
  return kernels::dtypeName(type);
}

std::optional<kernels::DType> parseDtype(std::string_view name) {
  for (auto type : {kernels::DType::Fp32, kernels::DType::Bf16})
    if (name == kernels::dtypeName(type)) return type;
  return std::nullopt;
}

}  // namespace ps::runtime
