#pragma once
// A run built in memory from the rows a writer is about to write, exactly as loadRun would read
// them back (same rank slots, lanes, tie order, interned names, sorted stages and layers). The
// app shows a simulated run from it while the same rows are still being written to the file.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/store/TraceWriter.h"

namespace ps::trace {

// Interns op names so each op carries an int32 instead of a string (shared with the reader).
class OpNameTable {
 public:
  explicit OpNameTable(std::vector<std::string>& names) : names_(names) {}
  std::int32_t intern(std::string_view name);

 private:
  std::vector<std::string>& names_;
  std::unordered_map<std::string, std::int32_t> index_;
};

// The rank a trace keeps rows for, created (with the ones below it) on first use.
RankTrace& rankSlot(RunTrace& run, int rank);

class RunTraceBuilder {
 public:
  // `header.info.id` is the run's id as the caller knows it (none yet: any placeholder).
  explicit RunTraceBuilder(const RunHeader& header);
  RunTraceBuilder(const RunTraceBuilder&) = delete;
  RunTraceBuilder& operator=(const RunTraceBuilder&) = delete;

  // In the order they are written (ties in start time keep it, as loading does).
  void addOp(const OpRecord& op);
  void addMemory(const MemorySample& sample);
  // The run as loadRun returns it once `status` and `message` are recorded.
  RunTrace finish(RunStatus status, std::string message) &&;

 private:
  RunTrace run_;
  OpNameTable names_;
};

}  // namespace ps::trace
