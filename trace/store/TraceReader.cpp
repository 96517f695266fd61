#include "trace/store/TraceReader.h"

#include <optional>

#include "trace/store/OpCache.h"
#include "trace/store/RunRows.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

// One run's rows of `table` occupy a (mostly) contiguous rowid range, found through the run
// index in O(log n). Scanning that range in rowid order is as fast as a bare table scan, where
// reading through the index would seek once per row. Two ORDER BY ... LIMIT 1 lookups: a single
// min()/max() query would scan every index entry of the run.
Result<std::optional<std::pair<std::int64_t, std::int64_t>>> rowidRange(SqliteDb& db,
                                                                        const std::string& table,
                                                                        std::int64_t runId) {
  using Range = std::optional<std::pair<std::int64_t, std::int64_t>>;
  std::int64_t edges[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    auto q = db.prepare("SELECT rowid FROM " + table + " WHERE run_id=? ORDER BY rowid" +
                        (i ? " DESC" : "") + " LIMIT 1");
    if (!q) return std::move(q).takeError();
    q->bind(1, runId);
    auto row = q->step();
    if (!row) return std::move(row).takeError();
    if (!*row) return Range{};
    edges[i] = q->int64(0);
  }
  return Range{std::pair{edges[0], edges[1]}};
}

Status loadOps(TraceStore& store, RunTrace& run, const LoadOptions& opt, LoadCounts& counts) {
  SqliteDb& db = store.db();
  auto range = rowidRange(db, "op", run.info.id);
  if (!range) return std::move(range).takeError();
  if (!*range) return {};
  const auto [first, last] = **range;
  counts.opRows = OpRowRange{first, last};
  // A stale, foreign or broken cache is not an error: the rows are the truth.
  if (opt.readCache) {
    if (auto cached = readOpCache(db, run, *counts.opRows); cached.ok() && *cached) {
      counts.opsFromCache = true;
      return {};
    }
  }

  auto stmt = db.prepare(std::string("SELECT ") + kOpRowColumns +
                         " FROM op NOT INDEXED WHERE rowid BETWEEN ? AND ? AND run_id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, first);
  stmt->bind(2, last);
  stmt->bind(3, run.info.id);
  OpNameTable names(run.names);
  RowCursor cursor;
  PS_TRY(appendOpRows(*stmt, run, names, counts, cursor, opt.cancel, store.path()));
  for (auto& r : run.ranks)
    for (auto& columns : r.lanes)
      columns.sortByStart();
  return {};
}

Status loadMemory(TraceStore& store, RunTrace& run, LoadCounts& counts) {
  auto range = rowidRange(store.db(), "memory", run.info.id);
  if (!range) return std::move(range).takeError();
  if (!*range) return {};
  auto stmt =
      store.db().prepare(std::string("SELECT ") + kMemoryRowColumns +
                         " FROM memory NOT INDEXED WHERE rowid BETWEEN ? AND ? AND run_id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, (*range)->first);
  stmt->bind(2, (*range)->second);
  stmt->bind(3, run.info.id);
  RowCursor cursor;
  PS_TRY(appendMemoryRows(*stmt, run, counts, cursor));
  for (auto& r : run.ranks)
    r.memory.sortByTime();
  return {};
}

}  // namespace

Result<RunTrace> loadRun(TraceStore& store, std::int64_t runId, const LoadOptions& options) {
  auto info = store.run(runId);
  if (!info) return std::move(info).takeError();
  RunTrace run;
  run.info = std::move(*info);
  run.warnings = store.warnings();
  auto ranks = store.ranks(runId);
  if (!ranks) return std::move(ranks).takeError();
  // Ranks come from the rows (rank, op, memory), never from the header's num_ranks alone: a
  // header claiming 2^31-1 ranks must not allocate them (checked against the data below).
  for (auto& rank : *ranks)
    if (rank.rank >= 0 && rank.rank <= kMaxRank) rankSlot(run, rank.rank).info = rank;
  LoadCounts counts;
  // Reads happen in one transaction so a concurrent writer's step never shows half-written.
  PS_TRY(store.db().exec("BEGIN"));
  Status s = options.withOps ? loadOps(store, run, options, counts) : Status{};
  if (s && options.withMemory) s = loadMemory(store, run, counts);
  if (s) s = loadSmallTables(store.db(), run);
  if (s && options.afterRowsRead) options.afterRowsRead();
  // A large finished run read from its rows leaves a columnar copy for the next open, written in
  // this same transaction so that it is stored only if no other connection changed the file
  // since these rows were read (best effort: a busy or read-only file keeps reading rows).
  if (s && counts.opRows && !counts.opsFromCache && !counts.opsRepaired() &&
      !store.db().readOnly() && run.info.status != RunStatus::Running &&
      run.opCount() >= options.cacheFromOps)
    (void)writeOpCache(store.db(), run, *counts.opRows);
  if (!store.db().exec("COMMIT")) (void)store.db().exec("ROLLBACK");
  if (!s) return std::move(s).takeError();
  // Without ops or memory loaded the rows seen are only the rank rows: trust the header then.
  if (options.withOps && options.withMemory) {
    addLoadWarnings(store.path(), run, counts, run.info.num_ranks);
    run.info.num_ranks = static_cast<int>(run.ranks.size());
  } else {
    addLoadWarnings(store.path(), run, counts, static_cast<int>(run.ranks.size()));
  }
  return run;
}

Result<RunTrace> loadRunFromFile(const std::string& path, std::optional<std::int64_t> runId,
                                 const LoadOptions& options) {
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  if (!store) return std::move(store).takeError();
  std::int64_t id = 0;
  if (runId) {
    id = *runId;
  } else {
    auto latest = store->latestRun();
    if (!latest) return std::move(latest).takeError();
    id = latest->id;
  }
  return loadRun(*store, id, options);
}

}  // namespace ps::trace
