#include "runtime/cuda/CudaSmSplit.h"

#include <string>

#include "kernels/cuda/CudaDriverApi.h"
#include "runtime/cuda/SmShareSize.h"

namespace ps::runtime {
namespace {

Status driverCheck(CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return {};
  const char* name = nullptr;
  if (const auto& api = kernels::cuda::driverApi(); api.getErrorName) api.getErrorName(rc, &name);
  return Error{std::string(what) + ": " + (name ? name : "driver error " + std::to_string(rc))};
}

// The green-context functions the driver lacks, by name ("" when it has them all).
std::string missingGreenContextFunctions(const kernels::cuda::DriverApi& api) {
  std::string missing;
  const auto need = [&](bool has, const char* name) {
    if (!has) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(api.deviceGet != nullptr, "cuDeviceGet");
  need(api.deviceGetDevResource != nullptr, "cuDeviceGetDevResource");
  need(api.devSmResourceSplitByCount != nullptr, "cuDevSmResourceSplitByCount");
  need(api.devResourceGenerateDesc != nullptr, "cuDevResourceGenerateDesc");
  need(api.greenCtxCreate != nullptr, "cuGreenCtxCreate");
  need(api.greenCtxStreamCreate != nullptr, "cuGreenCtxStreamCreate");
  need(api.greenCtxDestroy != nullptr, "cuGreenCtxDestroy");
  need(api.streamDestroy != nullptr, "cuStreamDestroy");
  return missing;
}

}  // namespace

Result<std::vector<SmShare>> splitSms(int device, int parts) {
  if (parts < 1) return Error{"an SM split needs at least one part"};
  const auto& api = kernels::cuda::driverApi();
  if (const std::string missing = missingGreenContextFunctions(api); !missing.empty())
    return Error{"the driver has no green-context streams (it lacks " + missing +
                 "; they need a CUDA 12.5 or newer driver)"};
  CUdevice dev = 0;
  PS_TRY(driverCheck(api.deviceGet(&dev, device), "cuDeviceGet"));
  CUdevResource all{};
  PS_TRY(driverCheck(api.deviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM),
                     "cuDeviceGetDevResource"));
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
    cudaGetLastError();  // unknown: the fallback granule then assumes the smallest
  const unsigned total = all.sm.smCount;
  const unsigned granule =
      smShareGranule(all.sm.smCoscheduledAlignment, all.sm.minSmPartitionSize, major);
  const unsigned each = smsPerShare(total, parts, granule);
  if (each == 0)
    return Error{"the GPU's " + std::to_string(total) + " SMs cannot be split " +
                 std::to_string(parts) + " ways (groups of " + std::to_string(granule) + ")"};
  std::vector<CUdevResource> groups(parts);
  unsigned made = static_cast<unsigned>(parts);
  CUdevResource rest{};
  PS_TRY(driverCheck(api.devSmResourceSplitByCount(groups.data(), &made, &all, &rest, 0, each),
                     "cuDevSmResourceSplitByCount"));
  if (made < static_cast<unsigned>(parts))
    return Error{"the driver made " + std::to_string(made) + " SM groups of " +
                 std::to_string(each) + ", not " + std::to_string(parts)};
  std::vector<SmShare> shares;
  for (int i = 0; i < parts; ++i) {
    SmShare share;
    CUdevResourceDesc desc = nullptr;
    Status ok =
        driverCheck(api.devResourceGenerateDesc(&desc, &groups[i], 1), "cuDevResourceGenerateDesc");
    if (ok)
      ok = driverCheck(api.greenCtxCreate(&share.context, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM),
                       "cuGreenCtxCreate");
    CUstream stream = nullptr;
    if (ok)
      ok = driverCheck(api.greenCtxStreamCreate(&stream, share.context, CU_STREAM_NON_BLOCKING, 0),
                       "cuGreenCtxStreamCreate");
    if (!ok) {
      if (share.context) api.greenCtxDestroy(share.context);
      releaseSmShares(shares);
      return Error{ok.error()};
    }
    share.stream = reinterpret_cast<cudaStream_t>(stream);
    share.smCount = static_cast<int>(groups[i].sm.smCount);
    share.granule = static_cast<int>(granule);
    shares.push_back(share);
  }
  return shares;
}

void releaseSmShares(std::vector<SmShare>& shares) {
  const auto& api = kernels::cuda::driverApi();
  for (SmShare& s : shares) {
    if (s.stream && api.streamDestroy) api.streamDestroy(reinterpret_cast<CUstream>(s.stream));
    if (s.context && api.greenCtxDestroy) api.greenCtxDestroy(s.context);
  }
  shares.clear();
}

}  // namespace ps::runtime
