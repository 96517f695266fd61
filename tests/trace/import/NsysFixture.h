#pragma once
// Writes a small Nsight Systems SQLite export (the tables and column names of nsys 2024.6,
// export schema 3.16.1) from FixtureRank descriptions, so the nsys reader's tests plant exactly
// what they check. Each rank is one process in the file, as in `nsys profile mpirun -np N ...`:
//   pid = basePid + rank, its main thread tid = pid, its GPU = device `rank`,
//   globalPid = 2^48 | pid << 24 (what nsys writes on a single host), globalTid = globalPid | tid.
// Mapping of FixtureEvent kinds:
//   Annotation -> an NVTX push/pop (or start/end) range on the main thread over
//                 [start - hostLeadNs, end - hostLeadNs], step in the payload;
//   Kernel/Nccl -> a cudaLaunchKernel runtime row at (start - hostLeadNs) + a kernel row with the
//                 same correlation id (compute on stream 7, NCCL on stream 13);
//   Memcpy     -> a cudaMemcpyAsync runtime row + a memcpy row: peer >= 0 makes it a peer-to-peer
//                 copy from this rank's device to device `peer`, else host-to-device.
// So a range owns the GPU work whose start (minus the host lead) falls inside it, which is how a
// CUDA program launches work ahead of the GPU. Every time written gets clockSkewNs added; the
// session start (utcEpochNs) is the first rank's wallClockBaseNs, unskewed: a skewed node reads
// wall time = base + local, off by the skew, as a wrong node clock would be.
// FixtureRank.memory (bytes in use over time) becomes allocation/free rows of the differences.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/trace/import/FixtureSpec.h"
#include "trace/Result.h"

namespace ps::trace::import::testing {

struct NsysFixtureOptions {
  std::string schemaVersion = "3.16.1";  // META_DATA_EXPORT EXPORT_SCHEMA_VERSION
  bool writeEnumTables = true;           // false: an old export relying on documented codes
  // Added to every enum code, in the ENUM_* tables and in the data alike: a reader that
  // hard-codes codes instead of resolving names breaks.
  std::int64_t enumCodeOffset = 0;
  bool trimmedGpuInfo = false;   // TARGET_INFO_CUDA_GPU (deviceId, globalMemorySize...) instead of
                                 // TARGET_INFO_GPU, as trimmed exports have
  bool registeredNames = false;  // NVTX names via textId -> StringIds, not inline text
  bool startEndRanges = false;   // NvtxStartEndRange instead of NvtxPushPopRange
  std::string nvtxDomain = "pipescope";  // a domain-create row + domainId; "" = default domain
  std::string stepPayloadColumn = "int64Value";  // where an annotation's step goes
  std::int64_t hostLeadNs = 0;       // host ranges and launches run this far ahead of the GPU
  std::int64_t pinnedHostBytes = 0;  // a pinned host allocation (not device memory) if > 0
  int basePid = 4000;
  std::string hostName = "node01";
  int computeMajor = 9;
  int computeMinor = 0;
  // Emulating older or trimmed schemas: tables not written at all, columns left out.
  std::vector<std::string> dropTables;
  std::vector<std::pair<std::string, std::string>> dropColumns;  // (table, column)
};

// Writes `ranks` into a new export at `path` (an existing file is replaced).
Status writeNsysFixture(const std::string& path, const std::vector<FixtureRank>& ranks,
                        const NsysFixtureOptions& options = {});

// The globalPid / globalTid the fixture gives rank `rank`'s process and main thread.
std::int64_t fixtureGlobalPid(const NsysFixtureOptions& options, int rank);
std::int64_t fixtureGlobalTid(const NsysFixtureOptions& options, int rank);

// Track numbers the reader gives a GPU stream / the main thread of the fixture's rank `rank`.
inline constexpr std::int64_t kFixtureComputeStream = 7;
inline constexpr std::int64_t kFixtureNcclStream = 13;
inline constexpr std::int64_t kFixtureCopyStream = 14;

}  // namespace ps::trace::import::testing
