#include "trace/store/TraceStore.h"

#include <charconv>

#include "trace/store/Schema.h"

namespace ps::trace {
namespace {

Result<std::vector<std::string>> tableNames(SqliteDb& db) {
  auto stmt = db.prepare("SELECT name FROM sqlite_master WHERE type='table'");
  if (!stmt) return std::move(stmt).takeError();
  std::vector<std::string> names;
  for (;;) {
    auto row = stmt->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    names.emplace_back(stmt->text(0));
  }
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

std::string idList(const std::vector<RunInfo>& runs) {
  if (runs.empty()) return "it holds no runs";
  std::string text = "it holds run";
  text += runs.size() == 1 ? " " : "s ";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i) text += ", ";
    if (i == 8 && runs.size() > 10) {
      text += "…, " + std::to_string(runs.back().id);
      break;
    }
    text += std::to_string(runs[i].id);
  }
  return text;
}

}  // namespace

RunInfo readRunRow(const SqliteStatement& s) {
  RunInfo info;
  info.id = s.int64(0);
  info.name = std::string(s.text(1));
  info.created_utc = std::string(s.text(2));
  info.source = std::string(s.text(3));
  info.schedule = s.optText(4);
  info.num_ranks = static_cast<int>(s.int64(5));
  if (auto v = s.optInt64(6)) info.num_stages = static_cast<int>(*v);
  if (auto v = s.optInt64(7)) info.num_microbatches = static_cast<int>(*v);
  info.config_json = std::string(s.text(8));
  info.status = parseRunStatus(s.text(9)).value_or(RunStatus::Running);
  info.status_message = std::string(s.text(10));
  return info;
}

Result<TraceStore> TraceStore::open(const std::string& path, Mode mode) {
  auto db = SqliteDb::open(
      path, mode == Mode::ReadOnly ? SqliteDb::Mode::ReadOnly : SqliteDb::Mode::ReadWriteCreate);
  if (!db) return std::move(db).takeError();
  TraceStore store(std::move(*db));
  if (mode == Mode::ReadOnly) {
    PS_TRY(store.checkOurs());
  } else {
    PS_TRY(store.initWritable());
  }
  return store;
}

TraceStore::~TraceStore() {
  // Leave the file in rollback-journal mode at rest, so that a later read-only open needs no
  // -wal/-shm files and reading never touches the directory. Fails harmlessly while another
  // connection (say the app) still has the file open.
  if (db_.handle() && !db_.readOnly()) (void)db_.exec("PRAGMA journal_mode=DELETE");
}

Status TraceStore::checkOurs() {
  auto names = tableNames(db_);
  if (!names) return std::move(names).takeError();
  if (!contains(*names, "meta")) return Error{path() + ": not a PipeScope trace (no 'meta' table)"};
  auto stmt = db_.prepare("SELECT value FROM meta WHERE key='schema_version'");
  if (!stmt) return std::move(stmt).takeError();
  auto row = stmt->step();
  if (!row) return std::move(row).takeError();
  if (!*row) return Error{path() + ": not a PipeScope trace (meta has no schema_version)"};
  const std::string_view text = stmt->text(0);
  int version = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || ptr != text.data() + text.size() || version < 1)
    return Error{path() + ": schema_version '" + std::string(text) + "' is not a version number"};
  if (version > kSchemaVersion)
    return Error{path() + ": schema version " + std::to_string(version) +
                 " is newer than this PipeScope supports (" + std::to_string(kSchemaVersion) +
                 "); update PipeScope to read it"};
  schemaVersion_ = version;
  if (version < kSchemaVersion) {
    if (db_.readOnly())
      return Error{path() + ": schema version " + std::to_string(version) + " is older than " +
                   std::to_string(kSchemaVersion) + "; open it for writing once to migrate it"};
    PS_TRY(migrate(db_, version, migrations()));
    schemaVersion_ = kSchemaVersion;
  }
  std::string missing;
  for (auto table : requiredTables())
    if (!contains(*names, table)) missing += (missing.empty() ? "" : ", ") + std::string(table);
  if (!missing.empty())
    return Error{path() + ": not a complete PipeScope trace (missing tables: " + missing + ")"};
  return {};
}

Status TraceStore::initWritable() {
  // WAL: readers (the app) keep reading while a run appends, and a killed writer loses only the
  // step it was writing.
  // 16 KiB pages for new files (ignored for existing ones): fewer b-tree pages per op and
  // faster full scans. Must precede the switch to WAL, which fixes the page size.
  PS_TRY(db_.exec("PRAGMA page_size=16384"));
  PS_TRY(db_.exec("PRAGMA journal_mode=WAL"));
  PS_TRY(db_.exec("PRAGMA synchronous=NORMAL"));
  PS_TRY(db_.exec("PRAGMA cache_size=-65536"));  // 64 MiB: bulk inserts stay in memory
  // Checkpoint every ~64 MiB of WAL rather than every 4 MiB: fewer syncs during bulk writes.
  PS_TRY(db_.exec("PRAGMA wal_autocheckpoint=4096"));
  auto names = tableNames(db_);
  if (!names) return std::move(names).takeError();
  if (names->empty()) {
    auto tx = SqliteTransaction::begin(db_);
    if (!tx) return std::move(tx).takeError();
    PS_TRY(createSchema(db_, "pipescope " PIPESCOPE_VERSION));
    PS_TRY(tx->commit());
    schemaVersion_ = kSchemaVersion;
    return {};
  }
  if (!contains(*names, "meta"))
    return Error{path() +
                 ": is a SQLite database but not a PipeScope trace; refusing to write into it"};
  return checkOurs();
}

Result<std::vector<RunInfo>> TraceStore::listRuns() {
  auto stmt = db_.prepare("SELECT " + std::string(kRunColumns) + " FROM run ORDER BY id");
  if (!stmt) return std::move(stmt).takeError();
  std::vector<RunInfo> runs;
  for (;;) {
    auto row = stmt->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    runs.push_back(readRunRow(*stmt));
  }
  return runs;
}

Result<RunInfo> TraceStore::run(std::int64_t id) {
  auto stmt = db_.prepare("SELECT " + std::string(kRunColumns) + " FROM run WHERE id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, id);
  auto row = stmt->step();
  if (!row) return std::move(row).takeError();
  if (*row) return readRunRow(*stmt);
  auto runs = listRuns();
  if (!runs) return std::move(runs).takeError();
  return Error{path() + ": no run with id " + std::to_string(id) + " (" + idList(*runs) + ")"};
}

Result<RunInfo> TraceStore::latestRun() {
  auto stmt =
      db_.prepare("SELECT " + std::string(kRunColumns) + " FROM run ORDER BY id DESC LIMIT 1");
  if (!stmt) return std::move(stmt).takeError();
  auto row = stmt->step();
  if (!row) return std::move(row).takeError();
  if (!*row) return Error{path() + ": the trace holds no runs"};
  return readRunRow(*stmt);
}

Result<std::vector<RankInfo>> TraceStore::ranks(std::int64_t runId) {
  auto stmt = db_.prepare(
      "SELECT rank, host, device, memory_capacity_bytes, clock_offset_ns FROM rank "
      "WHERE run_id=? ORDER BY rank");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, runId);
  std::vector<RankInfo> out;
  for (;;) {
    auto row = stmt->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    RankInfo r;
    r.rank = static_cast<int>(stmt->int64(0));
    r.host = stmt->optText(1);
    r.device = stmt->optText(2);
    r.memory_capacity_bytes = stmt->optInt64(3);
    r.clock_offset_ns = stmt->int64(4);
    out.push_back(std::move(r));
  }
  return out;
}

Status TraceStore::deleteRun(std::int64_t runId) {
  auto tx = SqliteTransaction::begin(db_);
  if (!tx) return std::move(tx).takeError();
  for (std::string_view sql :
       {"DELETE FROM op WHERE run_id=?", "DELETE FROM memory WHERE run_id=?",
        "DELETE FROM metric WHERE run_id=?", "DELETE FROM layer WHERE run_id=?",
        "DELETE FROM stage WHERE run_id=?", "DELETE FROM rank WHERE run_id=?",
        "DELETE FROM run WHERE id=?"}) {
    auto stmt = db_.prepare(sql);
    if (!stmt) return std::move(stmt).takeError();
    stmt->bind(1, runId);
    PS_TRY(stmt->run());
  }
  return tx->commit();
}

}  // namespace ps::trace
