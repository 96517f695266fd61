#pragma once
// A columnar copy of a run's ops inside the same file (table op_cache), so that opening a large
// run decodes a few blobs instead of stepping through millions of rows. It is derived data: the
// `op` table stays the contract for SQL users, and the cache is rebuildable, versioned and
// dropped when it could be stale.
//
// One row per (run, rank, lane, block of up to kOpCacheBlock ops): the lane's columns one after
// the other in the narrowest fixed width that holds them (start as deltas, end as durations;
// OpCacheCodec.cpp), read with incremental blob I/O straight into exactly reserved columns, plus
// one row (rank = lane = -1) with the run's interned names. What the cache is checked against at
// every open, each a reason to read the rows instead (and a writable open to rebuild it):
//  - the run's op rowid range it was built from (rows appended to the run move it);
//  - a fingerprint of the op rows (OpCacheProof.h): the op table's definition with its indexes
//    and the two triggers that delete a run's cache when any of its op rows is updated or
//    deleted, and a sample of 256 of the run's rows; a table rebuilt by CREATE AS SELECT / DROP
//    / RENAME or a dropped trigger fails it;
//  - each row's checksum of its bytes (a bit flip that still decodes), then the decoding checks.
// It is written in the same transaction that read the rows, so it is never older than they are.
// Running runs are never cached (they still grow); neither is a run the loader had to repair.
// To remove the cache by hand, drop the table and its two triggers (op_cache_stale_on_update,
// op_cache_stale_on_delete); a PipeScope that opens the file for writing re-creates the table if
// only the table was dropped, and deletes every cached run when it has to re-create a trigger.

#include <cstdint>

#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

inline constexpr int kOpCacheFormat = 4;  // 4: checksum and rows_check columns
inline constexpr std::size_t kOpCacheBlock = 1 << 20;

struct OpRowRange {
  std::int64_t first = 0;
  std::int64_t last = 0;
};

// Fills `run`'s lanes and names from the cache when it holds this run at this row range in this
// format and passes its checks (above); false (and `run` untouched) when it does not. Read in the
// caller's transaction. Lanes are decoded on up to four threads, one more for every
// `opsPerThread` ops.
inline constexpr std::size_t kOpCacheOpsPerThread = 1'000'000;
Result<bool> readOpCache(SqliteDb& db, RunTrace& run, OpRowRange rows,
                         std::size_t opsPerThread = kOpCacheOpsPerThread);

// Replaces the run's cache with `run`'s lanes (sorted by start, as loadRun leaves them), inside
// the caller's transaction, the one that read `run` from the rows: it fails (and writes nothing)
// when another connection has committed since that transaction began. Creates the table and its
// triggers when missing (OpCacheProof.h, prepareOpCacheTable).
Status writeOpCache(SqliteDb& db, const RunTrace& run, OpRowRange rows);

// Re-creates an empty op_cache table when its triggers are there without it (someone dropped the
// table only), so that UPDATE and DELETE on op keep working. Nothing to do otherwise. (Defined in
// OpCacheProof.cpp, beside the table's definition.)
Status healOpCache(SqliteDb& db);

}  // namespace ps::trace
