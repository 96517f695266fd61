#pragma once
// One function per table group of an nsys export. Each adds what it read to the processes in the
// context, and a warning when its table is missing. Order matters: NVTX first (it tells which
// processes and threads need projection material), then the runtime calls, then the GPU work.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "trace/import/nsys/NsysContext.h"

namespace ps::trace::import::nsys {

// NVTX push/pop and start/end ranges -> CpuAnnotation events, ProfilerStep#N -> steps, payload
// integer -> step; "MPI Rank N" thread names / marks -> rank hint.  (NsysNvtx.cpp)
Status readNvtxRanges(NsysContext& ctx);

// CUDA runtime calls on threads with NVTX ranges, for projection.  (NsysActivity.cpp)
Status readRuntimeLaunches(NsysContext& ctx);
// Kernels (NCCL ones as NcclKernel), memcpy (peer-to-peer with the peer device), memset.
Status readKernels(NsysContext& ctx);
Status readMemcpys(NsysContext& ctx);
Status readMemsets(NsysContext& ctx);

// CUDA_GPU_MEMORY_USAGE_EVENTS -> per process and device, +/- bytes.  (NsysMemory.cpp)
Status readMemoryUsage(NsysContext& ctx);
// The running total of device memory in use on `device` of `process`, from its deltas.
void buildMemorySeries(NsysProcess& process, std::optional<std::int64_t> device);

struct NsysDevice {
  std::string name;
  std::optional<std::int64_t> totalMemory;
  std::optional<int> computeMajor;
  std::optional<int> computeMinor;
  // "NVIDIA H200 (sm_90)", or the bare name when the compute capability is unknown.
  std::string describe() const;
};

// Metadata.  (NsysMetadata.cpp)
// EXPORT_SCHEMA_VERSION: an unknown major version is an error; a missing table a warning.
Status checkSchemaVersion(NsysContext& ctx);
// TARGET_INFO_GPU, completed from TARGET_INFO_CUDA_GPU (trimmed exports have only that).
Result<std::map<std::int64_t, NsysDevice>> readDevices(NsysContext& ctx);
// TARGET_INFO_SESSION_START_TIME.utcEpochNs: UTC of local time 0.
Result<std::optional<std::int64_t>> readSessionStart(NsysContext& ctx);
// TARGET_INFO_SYSTEM_ENV Hostname.
Result<std::optional<std::string>> readHostName(NsysContext& ctx);
// Processes that called the CUDA runtime (for an export with no GPU work and no NVTX).
Result<std::vector<std::int64_t>> readRuntimeProcesses(NsysContext& ctx);

}  // namespace ps::trace::import::nsys
