#pragma once
// What the nsys reader gathers for one profiled process while it scans the tables: the trace it
// is filling plus the lookups that make the scans cheap (name and track caches) and the material
// for NVTX -> GPU projection (ranges, the runtime calls on their threads, the GPU work by
// correlation id).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/import/GpuProjection.h"
#include "trace/import/RawTrace.h"
#include "trace/import/nsys/NsysTracks.h"

namespace ps::trace::import::nsys {

class NsysStrings;

// globalTid / globalPid, nsys's "serialized GlobalId": bits 0..23 the thread id, 24..47 the
// process id, the bits above tell VMs and hardware apart. A process's globalPid is any of its
// globalTids with the thread bits cleared.
inline int pidOf(std::int64_t globalId) {
  return static_cast<int>((globalId >> 24) & 0xFFFFFF);
}
inline int tidOf(std::int64_t globalTid) {
  return static_cast<int>(globalTid & 0xFFFFFF);
}
inline std::int64_t processOf(std::int64_t globalId) {
  return globalId & ~std::int64_t{0xFFFFFF};
}

// The projection material's pieces (GpuProjection.h): RangeRef::thread is a globalTid.
using import::GpuWork;
using import::Launch;
using import::RangeRef;

struct NsysProcess {
  std::int64_t globalPid = 0;
  RawRankTrace trace;
  bool hasGpuWork = false;
  bool hasRanges = false;
  std::optional<int> rankHint;  // from an NVTX thread name / mark "MPI Rank N"
  NsysTracks tracks;

  // Projection material (filled only for processes with NVTX ranges; launches by globalTid).
  ProjectionMaterial projection;

  // Device memory: per device, (time, +/- bytes) in file order.
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> memoryDeltas;

  // Kernel name for a StringIds id: interned index and NCCL operation, cached per id.
  std::pair<std::int32_t, CommOp> kernelName(std::int64_t nameId, NsysStrings& strings);
  // Interned name of a copy ("Memcpy HtoD", "Memcpy PtoP"...), cached per copy kind.
  std::int32_t copyName(std::int64_t copyKind, std::string_view kindName);

 private:
  std::unordered_map<std::int64_t, std::pair<std::int32_t, CommOp>> kernelNames_;
  std::int64_t lastNameId_ = -1;
  std::pair<std::int32_t, CommOp> lastName_{-1, CommOp::None};
  std::unordered_map<std::int64_t, std::int32_t> copyNames_;
};

// The processes seen so far, by globalPid; the last one looked up is cached because table rows
// come in long runs from one process.
class NsysProcesses {
 public:
  NsysProcess& get(std::int64_t globalPid);
  NsysProcess* find(std::int64_t globalPid);
  // All processes, ordered by process id (then globalPid: the same pid on two hosts).
  std::vector<NsysProcess*> ordered();

 private:
  std::unordered_map<std::int64_t, std::unique_ptr<NsysProcess>> byGlobalPid_;
  std::int64_t lastKey_ = 0;
  NsysProcess* last_ = nullptr;
};

}  // namespace ps::trace::import::nsys
