#pragma once
// Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`, schema 2.x and 3.x).
//
// One RawRankTrace per profiled process that has GPU work or NVTX ranges (an
// `nsys profile mpirun -np 4 ...` export holds four), ordered by process id. What each holds:
//   - NVTX push/pop and start/end ranges as CpuAnnotation events on their host thread, and, for
//     ranges that launched GPU work, a GpuAnnotation over that work's GPU time (NsysProjection.h);
//     an integer NVTX payload is the event's step; ranges named ProfilerStep#N are steps.
//   - kernels (NCCL kernels as NcclKernel with their CommOp), memcpy (bytes; a peer-to-peer copy
//     has `peer` = the other DEVICE id, as nsys knows devices, not ranks), memset.
//   - device memory in use over time (CUDA_GPU_MEMORY_USAGE_EVENTS) for the process's device.
//   - device name and memory, host name, wallClockOffsetNs = session start (UTC ns): nsys times
//     are nanoseconds since the session started.
//   - rank only from an NVTX thread name or mark "MPI Rank N"; otherwise unset (the merge stage
//     takes it from the file name or --rank).
// Tracks: a host thread is its OS thread id (< 2^24); a GPU stream is
// 2^24 + deviceId * 2^18 + streamId (NsysTracks.h).
// Tables and columns are discovered, enum codes resolved by name from the ENUM_* tables; what is
// missing is said in `warnings` and the rest imported. The file is opened read-only.

#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// Errors (one line naming the file): not SQLite; "not an Nsight Systems export (no StringIds
// table)"; an export schema major version above 3; a read error naming the table; "import
// cancelled".
Result<std::vector<RawRankTrace>> readNsysFile(const std::string& path,
                                               const ReadControl& control = {});

}  // namespace ps::trace::import
