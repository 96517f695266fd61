#include "trace/store/OpCacheProof.h"

#include <sqlite3.h>

#include <cstring>
#include <string>
#include <string_view>

#include "trace/store/OpCacheCodec.h"

namespace ps::trace {
namespace {

void putInt(std::string& out, std::int64_t v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}

void putText(std::string& out, std::string_view text) {
  putInt(out, static_cast<std::int64_t>(text.size()));
  out.append(text);
}

// Every column of the current row, with its type: NULL, 1 and '1' all differ.
void putRow(std::string& out, sqlite3_stmt* s) {
  const int columns = sqlite3_column_count(s);
  for (int c = 0; c < columns; ++c) {
    const int type = sqlite3_column_type(s, c);
    out.push_back(static_cast<char>(type));
    if (type == SQLITE_INTEGER) {
      putInt(out, sqlite3_column_int64(s, c));
    } else if (type == SQLITE_FLOAT) {
      const double v = sqlite3_column_double(s, c);
      std::int64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      putInt(out, bits);
    } else if (type != SQLITE_NULL) {
      const void* p = sqlite3_column_blob(s, c);
      const int n = sqlite3_column_bytes(s, c);
      putText(out,
              std::string_view(static_cast<const char*>(p), p ? static_cast<std::size_t>(n) : 0));
    }
  }
}

// The k-th of `count` rowids spread evenly over [first, last], without overflow.
std::int64_t sampleRowid(OpRowRange rows, std::int64_t k, std::int64_t count) {
  const std::uint64_t span =
      static_cast<std::uint64_t>(rows.last) - static_cast<std::uint64_t>(rows.first);
  const auto steps = static_cast<std::uint64_t>(count - 1);
  const auto uk = static_cast<std::uint64_t>(k);
  const std::uint64_t offset = span / steps * uk + span % steps * uk / steps;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(rows.first) + offset);
}

// The cache's table and the triggers that drop a run's cache when its op rows are updated or
// deleted (through SQLite: a REPLACE deletes without firing them).
constexpr std::string_view kCreateOpCache = R"sql(
CREATE TABLE IF NOT EXISTS op_cache(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, lane INTEGER NOT NULL, block INTEGER NOT NULL,
  format INTEGER NOT NULL, first_rowid INTEGER NOT NULL, last_rowid INTEGER NOT NULL,
  ops INTEGER NOT NULL, data BLOB NOT NULL, checksum INTEGER NOT NULL, rows_check INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, lane, block));
CREATE TRIGGER IF NOT EXISTS op_cache_stale_on_update AFTER UPDATE ON op
  WHEN EXISTS (SELECT 1 FROM op_cache WHERE run_id IN (OLD.run_id, NEW.run_id))
  BEGIN DELETE FROM op_cache WHERE run_id IN (OLD.run_id, NEW.run_id); END;
CREATE TRIGGER IF NOT EXISTS op_cache_stale_on_delete AFTER DELETE ON op
  WHEN EXISTS (SELECT 1 FROM op_cache WHERE run_id = OLD.run_id)
  BEGIN DELETE FROM op_cache WHERE run_id = OLD.run_id; END;
)sql";

}  // namespace

Result<std::uint64_t> opRowsFingerprint(SqliteDb& db, std::int64_t runId, OpRowRange rows) {
  std::string bytes;
  putInt(bytes, runId);
  putInt(bytes, rows.first);
  putInt(bytes, rows.last);
  auto schema = db.prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'op' ORDER BY type, name");
  if (!schema) return std::move(schema).takeError();
  for (;;) {
    auto row = schema->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    putRow(bytes, schema->handle());
  }
  auto sample = db.prepare(
      "SELECT run_id, rank, kind, stage, microbatch, step, start_ns, end_ns, peer_rank, bytes, "
      "name FROM op WHERE rowid = ?");
  if (!sample) return std::move(sample).takeError();
  const std::uint64_t span =
      static_cast<std::uint64_t>(rows.last) - static_cast<std::uint64_t>(rows.first);
  const std::int64_t count = span < static_cast<std::uint64_t>(kOpCacheSampleRows)
                                 ? static_cast<std::int64_t>(span) + 1
                                 : kOpCacheSampleRows;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t rowid = count == 1 ? rows.first : sampleRowid(rows, k, count);
    sample->reset();
    sample->bind(1, rowid);
    auto row = sample->step();
    if (!row) return std::move(row).takeError();
    putInt(bytes, rowid);
    if (*row)
      putRow(bytes, sample->handle());
    else
      bytes.push_back('-');  // a gap in the range (another run's rows, or deleted)
  }
  return opCacheChecksum(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), 0);
}

Status healOpCache(SqliteDb& db) {
  auto q = db.prepare(
      "SELECT count(*) FROM sqlite_master WHERE type='trigger' AND name LIKE 'op_cache_stale_%'");
  if (!q) return std::move(q).takeError();
  auto row = q->step();
  if (!row) return std::move(row).takeError();
  if (q->int64(0) == 0) return {};
  return db.exec(kCreateOpCache);
}

Status prepareOpCacheTable(SqliteDb& db) {
  auto q = db.prepare(
      "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'op' AND "
      "name IN ('op_cache_stale_on_update', 'op_cache_stale_on_delete')), "
      "(SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'op_cache')");
  if (!q) return std::move(q).takeError();
  auto row = q->step();
  if (!row) return std::move(row).takeError();
  const bool guarded = q->int64(0) == 2, hasTable = q->int64(1) > 0;
  q->reset();
  if (hasTable) {
    const bool currentFormat = db.prepare("SELECT checksum, rows_check FROM op_cache").ok();
    if (!currentFormat) {
      PS_TRY(db.exec("DROP TABLE op_cache"));
    } else if (!guarded) {
      PS_TRY(db.exec("DELETE FROM op_cache"));
    }
  }
  return db.exec(kCreateOpCache);
}

}  // namespace ps::trace
