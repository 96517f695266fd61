#pragma once
// The enum codes the reader needs, looked up by NAME in the export's ENUM_* tables: nsys
// renumbers enums between releases, and the tables are the file's own word. Older exports (schema
// 2.x) have no ENUM_* tables; then the codes documented for those releases serve, with a warning.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/Result.h"

namespace ps::trace {
class SqliteDb;
}

namespace ps::trace::import::nsys {

class NsysSchema;

struct NsysEnums {
  // NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE); nullopt when the file's enum lacks the name.
  std::optional<std::int64_t> pushPopRange = 59;   // NvtxPushPopRange
  std::optional<std::int64_t> startEndRange = 60;  // NvtxStartEndRange
  std::optional<std::int64_t> mark = 34;           // NvtxMark
  std::optional<std::int64_t> threadName = 39;     // NvtxThread (nvtxNameOsThread)
  // CUPTI_ACTIVITY_KIND_MEMCPY.copyKind (ENUM_CUDA_MEMCPY_OPER).
  std::vector<std::int64_t> peerToPeerCopyKinds = {10};         // CUDA_MEMCPY_KIND_PTOP
  std::unordered_map<std::int64_t, std::string> copyKindNames;  // code -> "HtoD", "PtoP"...
  // CUDA_GPU_MEMORY_USAGE_EVENTS.memoryOperationType (ENUM_CUDA_DEV_MEM_EVENT_OPER).
  std::optional<std::int64_t> allocation = 0;
  std::optional<std::int64_t> deallocation = 1;
  // CUDA_GPU_MEMORY_USAGE_EVENTS.memKind (ENUM_CUDA_MEM_KIND): host memory, not counted as
  // device memory in use (pageable, pinned).
  std::vector<std::int64_t> hostMemoryKinds = {0, 1};

  bool isPeerToPeer(std::int64_t copyKind) const;
  bool isHostMemory(std::int64_t memKind) const;
  // "HtoD", "DtoH", "PtoP"... for a memcpy event name; "" when the code is unknown.
  std::string_view copyKindName(std::int64_t copyKind) const;
};

// Reads the ENUM_* tables that the file's data tables need; a missing enum table adds one warning
// (only when the data table it decodes has rows) and keeps the documented codes.
Result<NsysEnums> readNsysEnums(SqliteDb& db, const NsysSchema& schema,
                                std::vector<std::string>& warnings);

}  // namespace ps::trace::import::nsys
