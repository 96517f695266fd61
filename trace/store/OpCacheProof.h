#pragma once
// What lets the op cache (OpCache.h) stand for a run's op rows without reading them: a
// fingerprint of the rows taken when the cache is built and compared at every open.
//
// It covers (1) the `op` table's definition in sqlite_master: the table, its indexes and its
// triggers, the cache's two guard triggers included. A table rebuilt by CREATE AS SELECT / DROP
// / RENAME, or a trigger dropped or changed, changes it; while it is unchanged every UPDATE and
// DELETE since the build went through the triggers, which drop the cache. (2) Every column of
// kOpCacheSampleRows rows spread evenly over the run's rowid range: an edit that bypassed the
// triggers (a REPLACE, which deletes without firing them; triggers dropped and re-created by
// hand) shows when it touched a sampled row, so edits to a share f of the rows escape with
// probability (1 - f)^256 (one rank of 32: 3e-4). A single edited row mostly escapes it. Rows
// added to the run move its rowid range (checked by the caller).
// Cost on a 1.16M-op run (1f1b p32 m2048, 3 steps): the fingerprint 2-3 ms at -O2 (1024 rows:
// 10-11 ms; each sampled row is a page read), against a cached open of 0.8 s in the dev build.
// Summing the run's rows instead (count, sum(start_ns), sum(end_ns) over its rowid range) takes
// 0.18 s in the sqlite3 shell and 0.46 s in the dev build for those 1.16M rows, ~1.5 s for the
// 10M-op bench run (estimated, no Release build): three times the cached open it would guard.

#include <cstdint>

#include "trace/Result.h"
#include "trace/store/OpCache.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

inline constexpr std::int64_t kOpCacheSampleRows = 256;

// The fingerprint of run `runId`'s op rows in `rows`; read in the caller's transaction.
Result<std::uint64_t> opRowsFingerprint(SqliteDb& db, std::int64_t runId, OpRowRange rows);

// Makes op_cache and its two guard triggers exist, in the caller's transaction. When a trigger
// was missing, every run's cache is deleted first: one built while it was missing, or before it
// was re-created by hand, may hide edits made meanwhile. A table of an older format is dropped.
Status prepareOpCacheTable(SqliteDb& db);

}  // namespace ps::trace
