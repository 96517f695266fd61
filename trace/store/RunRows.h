#pragma once
// Decoding a run's op and memory rows into a RunTrace, shared by the whole-run loader
// (TraceReader) and the live tail (RunTail): the same checks, the same repairs and the same
// warnings, so that a run followed while it grows equals the run loaded once it has ended.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/store/OpCache.h"
#include "trace/store/RunTraceBuilder.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

inline constexpr std::int64_t kMaxRank = 1'000'000;  // the highest rank index a row may name

// The op columns appendOpRows expects, in this order (rowid last).
inline constexpr const char* kOpRowColumns =
    "rank, kind, stage, microbatch, step, start_ns, end_ns, peer_rank, bytes, name, rowid";
// The memory columns appendMemoryRows expects, in this order (rowid last).
inline constexpr const char* kMemoryRowColumns = "rank, t_ns, bytes, rowid";

// What the loader left out or adjusted, counted while reading and reported once per kind.
struct LoadCounts {
  std::int64_t opsOutOfRange = 0;  // a start or end beyond ±kMaxAbsTimeNs
  std::int64_t opsBackwards = 0;   // end < start: end set to start
  std::int64_t opsBadStep = 0;     // step outside 0..INT32_MAX
  std::int64_t memoryOutOfRange = 0;
  std::int64_t memoryBadRank = 0;
  std::optional<OpRowRange> opRows;  // the run's op rowid range, when it has ops
  bool opsFromCache = false;
  bool opsRepaired() const { return opsOutOfRange || opsBackwards || opsBadStep; }
};

// Where the rows read so far end: the highest rowid stepped over (kept or not).
struct RowCursor {
  std::int64_t op = 0;
  std::int64_t memory = 0;
};

// Appends every op row `stmt` yields (kOpRowColumns) to its rank's lane, unsorted; polls
// `cancel` every 64k rows. `path` names the file in errors.
Status appendOpRows(SqliteStatement& stmt, RunTrace& run, OpNameTable& names, LoadCounts& counts,
                    RowCursor& cursor, const std::atomic<bool>* cancel, const std::string& path);
// Appends every memory row `stmt` yields (kMemoryRowColumns), unsorted.
Status appendMemoryRows(SqliteStatement& stmt, RunTrace& run, LoadCounts& counts,
                        RowCursor& cursor);
// Sorts every lane by start and every memory series by time (stable: ties keep row order).
void sortRows(RunTrace& run);
// Reads the run's stage, layer and metric rows (replacing what `run` held of them).
Status loadSmallTables(SqliteDb& db, RunTrace& run);
// One warning per kind of row left out or repaired, and one when the header's rank count
// differs from the ranks the rows name.
void addLoadWarnings(const std::string& path, RunTrace& run, const LoadCounts& counts,
                     int headerRanks);

}  // namespace ps::trace
