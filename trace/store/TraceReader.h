#pragma once
// Loads one run of a trace file into the columnar RunTrace.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "trace/Result.h"
#include "trace/RunTrace.h"

namespace ps::trace {

class TraceStore;

struct LoadOptions {
  bool withOps = true;
  bool withMemory = true;
  // Polled between rows; set it to abandon a load (the result is then an error "cancelled").
  const std::atomic<bool>* cancel = nullptr;
  // A finished run of at least this many ops, read from its rows in a writable file, leaves a
  // columnar copy for the next open (OpCache.h); smaller runs open fast from their rows.
  std::size_t cacheFromOps = 200'000;
  // false: read the rows even when the run has a valid cache (checks and benchmarks).
  bool readCache = true;
  // Called once the rows are read, before the cache is written (tests race a writer there).
  std::function<void()> afterRowsRead;
};

Result<RunTrace> loadRun(TraceStore& store, std::int64_t runId, const LoadOptions& options = {});

// Opens `path` read-only and loads run `runId`, or the latest run when none is given.
Result<RunTrace> loadRunFromFile(const std::string& path, std::optional<std::int64_t> runId,
                                 const LoadOptions& options = {});

}  // namespace ps::trace
