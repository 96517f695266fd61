#pragma once
// What lets the op cache (OpCache.h) stand for a run's op rows without reading them: a
// fingerprint of the rows taken when the cache is built and compared at every open.
//
// It covers (1) the `op` table's definition in sqlite_master: the table, its indexes and its
// triggers, the cache's two guard triggers included. A table rebuilt by CREATE AS SELECT / DROP
// / RENAME, or a trigger dropped or changed, changes it; while it is unchanged every UPDATE and
// DELETE since the build went through the triggers, which drop the cache. (2) A sample of
// kOpCacheSampleRows rows spread evenly over the run's rowid range, every column: an edit that
// bypassed the triggers (a REPLACE, which deletes without firing them; the triggers dropped and
// re-created by hand) shows when it touched a sampled row, so a share f of the rows changed
// escapes with probability (1 - f)^1024. Rows added to the run move its rowid range (checked
// by the caller). The rows themselves are not summed: that reads every row, which is the work
// the cache saves (bench figures in OpCacheProof.cpp).

#include <cstdint>

#include "trace/Result.h"
#include "trace/store/OpCache.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

inline constexpr std::int64_t kOpCacheSampleRows = 1024;

// The fingerprint of run `runId`'s op rows in `rows`; read in the caller's transaction.
Result<std::uint64_t> opRowsFingerprint(SqliteDb& db, std::int64_t runId, OpRowRange rows);

// Makes op_cache and its two guard triggers exist, in the caller's transaction. When a trigger
// was missing, every run's cache is deleted first: one built while it was missing, or before it
// was re-created by hand, may hide edits made meanwhile. A table of an older format is dropped.
Status prepareOpCacheTable(SqliteDb& db);

}  // namespace ps::trace
