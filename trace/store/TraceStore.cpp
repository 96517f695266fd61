#include "trace/store/TraceStore.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <thread>

#include "trace/store/AbandonedWrite.h"
#include "trace/store/OpCache.h"
#include "trace/store/RunRow.h"
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

constexpr int kWalSwitchTries = 200;  // x 25 ms: 5 s on top of the busy timeout of each try

}  // namespace

Result<TraceStore> TraceStore::open(const std::string& path, Mode mode) {
  // A writer that created the file and gave up may remove it while we open it, once it finds
  // nobody else connected (abandonWrite): then we hold a file that is no longer there. Looked at
  // before we switch it to WAL (no -wal made for a removed file) and after (from then on our
  // shared lock keeps it there): open the path again.
  for (int attempt = 0;; ++attempt) {
    auto store = openOnce(path, mode);
    if (!store || mode == Mode::ReadOnly || attempt == 3 || !openedFileMoved(store->db_))
      return store;
  }
}

Result<TraceStore> TraceStore::openOnce(const std::string& path, Mode mode) {
  auto db = SqliteDb::open(
      path, mode == Mode::ReadOnly ? SqliteDb::Mode::ReadOnly : SqliteDb::Mode::ReadWriteCreate);
  if (!db) return std::move(db).takeError();
  // Every store, read-only too, holds the file's run-lock descriptors while its connection is
  // open, so that they are never closed under it (RunLocks). The file exists by now.
  TraceStore store(std::move(*db), RunLocks::acquire(path));
  if (!store.db_.openWarning().empty()) store.warnings_.push_back(store.db_.openWarning());
  if (mode == Mode::ReadOnly) {
    auto names = tableNames(store.db_);
    if (!names) return std::move(names).takeError();
    PS_TRY(store.checkOurs(*names));
    PS_TRY(store.readOptionalColumns());
  } else {
    PS_TRY(store.initWritable());
  }
  return store;
}

TraceStore::TraceStore(TraceStore&& other) noexcept
    : locks_(std::move(other.locks_)),
      db_(std::move(other.db_)),
      schemaVersion_(other.schemaVersion_),
      hasStatusMessage_(other.hasStatusMessage_),
      writable_(std::exchange(other.writable_, false)),
      warnings_(std::move(other.warnings_)) {}

TraceStore& TraceStore::operator=(TraceStore&& other) noexcept {
  if (this != &other) {
    // The old connection closes before the old descriptors (RunLocks).
    closeConnection();
    db_ = std::move(other.db_);
    locks_ = std::move(other.locks_);
    schemaVersion_ = other.schemaVersion_;
    hasStatusMessage_ = other.hasStatusMessage_;
    writable_ = std::exchange(other.writable_, false);
    warnings_ = std::move(other.warnings_);
  }
  return *this;
}

TraceStore::~TraceStore() {
  closeConnection();
}

void TraceStore::closeConnection() {
  if (!db_.handle()) return;
  // Closes take turns (see RunLocks::CloseTurn): otherwise two stores closing at once each see
  // the other still open and both leave the -wal and -shm behind.
  const auto turn = locks_.closeTurn(writable_);
  // Leave the file in rollback-journal mode at rest, so that a later read-only open needs no
  // -wal/-shm files and reading never touches the directory. Fails harmlessly (and at once: no
  // busy wait) while another connection (say the app) still has the file open. Only a store that
  // passed its checks does this: a refused file is left exactly as it was.
  if (writable_) {
    sqlite3_busy_timeout(db_.handle(), 0);
    (void)db_.exec("PRAGMA journal_mode=DELETE");
  }
  db_ = SqliteDb();
}

Status TraceStore::checkOurs(const std::vector<std::string>& names) {
  if (!contains(names, "meta")) return Error{path() + ": not a PipeScope trace (no 'meta' table)"};
  auto stmt = db_.prepare("SELECT value FROM meta WHERE key='schema_version'");
  if (!stmt) return std::move(stmt).takeError();
  auto row = stmt->step();
  if (!row) return std::move(row).takeError();
  if (!*row) return Error{path() + ": not a PipeScope trace (meta has no schema_version)"};
  const std::string text(stmt->text(0));
  stmt->reset();  // release the read before a migration writes
  int version = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || ptr != text.data() + text.size() || version < 1)
    return Error{path() + ": schema_version '" + text + "' is not a version number"};
  if (version > kSchemaVersion)
    return Error{path() + ": schema version " + std::to_string(version) +
                 " is newer than this PipeScope supports (" + std::to_string(kSchemaVersion) +
                 "); update PipeScope to read it"};
  std::string missing;
  for (auto table : requiredTables())
    if (!contains(names, table)) missing += (missing.empty() ? "" : ", ") + std::string(table);
  if (!missing.empty())
    return Error{path() + ": not a complete PipeScope trace (missing tables: " + missing + ")"};
  schemaVersion_ = version;
  if (version < kSchemaVersion) {
    if (db_.readOnly())
      return Error{path() + ": schema version " + std::to_string(version) + " is older than " +
                   std::to_string(kSchemaVersion) + "; open it for writing once to migrate it"};
    PS_TRY(migrate(db_, version, migrations()));
    schemaVersion_ = kSchemaVersion;
  }
  // The op cache's triggers name its table: a table dropped without them would make every
  // UPDATE or DELETE on op fail. Heal that when we may write.
  if (!db_.readOnly() && !contains(names, "op_cache")) PS_TRY(healOpCache(db_));
  return {};
}

Status TraceStore::createIfEmpty(bool& created) {
  created = false;
  // 16 KiB pages for new files (ignored for existing ones): fewer b-tree pages per op and
  // faster full scans. Must precede the switch to WAL, which fixes the page size.
  PS_TRY(db_.exec("PRAGMA page_size=16384"));
  // Several writers may be creating this new file at once: look again under the write lock, and
  // only the first one in creates the schema.
  auto tx = SqliteTransaction::begin(db_);
  if (!tx) return std::move(tx).takeError();
  auto names = tableNames(db_);
  if (!names) return std::move(names).takeError();
  if (!names->empty()) return {};  // another writer won; the transaction rolls back
  PS_TRY(createSchema(db_, "pipescope " PIPESCOPE_VERSION));
  PS_TRY(tx->commit());
  schemaVersion_ = kSchemaVersion;
  created = true;
  return {};
}

Status TraceStore::switchToWal() {
  // WAL: readers (the app) keep reading while a run appends, and a killed writer loses only the
  // step it was writing. The switch needs the file to itself for a moment: retry while another
  // writer holds it (it is creating the file or closing it).
  for (int attempt = 0;; ++attempt) {
    Status s = db_.exec("PRAGMA journal_mode=WAL");
    if (s) break;
    if ((db_.lastErrorCode() & 0xff) != SQLITE_BUSY || attempt == kWalSwitchTries) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  PS_TRY(db_.exec("PRAGMA synchronous=NORMAL"));
  PS_TRY(db_.exec("PRAGMA cache_size=-65536"));  // 64 MiB: bulk inserts stay in memory
  // Checkpoint every ~64 MiB of WAL rather than every 4 MiB: fewer syncs during bulk writes.
  return db_.exec("PRAGMA wal_autocheckpoint=4096");
}

Status TraceStore::initWritable() {
  // Check first, then change: nothing below touches the file until it is known to be ours.
  auto names = tableNames(db_);
  if (!names) return std::move(names).takeError();
  if (names->empty()) {
    bool created = false;
    PS_TRY(createIfEmpty(created));
    if (!created) {
      names = tableNames(db_);
      if (!names) return std::move(names).takeError();
    }
  }
  if (!names->empty()) {
    if (!contains(*names, "meta"))
      return Error{path() +
                   ": is a SQLite database but not a PipeScope trace; refusing to write into it"};
    PS_TRY(checkOurs(*names));
  }
  if (openedFileMoved(db_)) return {};  // removed meanwhile: open() opens the path again
  writable_ = true;
  PS_TRY(switchToWal());
  PS_TRY(readOptionalColumns());
  return markStoppedRuns();
}

Status TraceStore::readOptionalColumns() {
  auto has = db_.hasColumn("run", "status_message");
  if (!has) return std::move(has).takeError();
  hasStatusMessage_ = *has;
  return {};
}

Status TraceStore::addMissingColumns() {
  // Asked inside the caller's write transaction: another writer may have added it meanwhile.
  auto has = db_.hasColumn("run", "status_message");
  if (!has) return std::move(has).takeError();
  if (!*has) PS_TRY(db_.exec("ALTER TABLE run ADD COLUMN status_message TEXT"));
  return {};
}

std::string TraceStore::runColumns() {
  // A writer of ours may have added the column since the open (its first write).
  if (!hasStatusMessage_) (void)readOptionalColumns();
  return std::string(kRunColumns) + (hasStatusMessage_ ? ", status_message" : "");
}

Status TraceStore::markStoppedRuns() {
  if (!locks_.valid()) return {};  // no lock support here: nobody can be told from the dead
  std::vector<std::int64_t> stopped;
  {
    auto stmt = db_.prepare("SELECT id FROM run WHERE status='running' ORDER BY id");
    if (!stmt) return std::move(stmt).takeError();
    for (;;) {
      auto row = stmt->step();
      if (!row) return std::move(row).takeError();
      if (!*row) break;
      const std::int64_t id = stmt->int64(0);
      if (locks_.probe(id) == RunLocks::Probe::Free) stopped.push_back(id);
    }
  }
  if (stopped.empty()) return {};
  // The writer of a run commits its final status before it releases the run's lock, so a run
  // still 'running' under the write lock whose byte is free has no writer left.
  Status s = [&]() -> Status {
    auto tx = SqliteTransaction::begin(db_);
    if (!tx) return std::move(tx).takeError();
    PS_TRY(addMissingColumns());
    auto update = db_.prepare(
        "UPDATE run SET status='failed', status_message='writer stopped' "
        "WHERE id=? AND status='running'");
    if (!update) return std::move(update).takeError();
    for (std::int64_t id : stopped) {
      if (locks_.probe(id) != RunLocks::Probe::Free) continue;
      update->bind(1, id);
      PS_TRY(update->run());
    }
    return tx->commit();
  }();
  if (!s) {
    // Not a reason to refuse the open: the runs just stay 'running' for now.
    warnings_.push_back(path() + ": could not mark stopped runs as failed: " + s.error());
    return {};
  }
  return readOptionalColumns();
}

Result<std::vector<RunInfo>> TraceStore::listRuns() {
  std::vector<RunInfo> runs;
  {
    auto stmt = db_.prepare("SELECT " + runColumns() + " FROM run ORDER BY id");
    if (!stmt) return std::move(stmt).takeError();
    for (;;) {
      auto row = stmt->step();
      if (!row) return std::move(row).takeError();
      if (!*row) break;
      runs.push_back(readRunRow(*stmt, hasStatusMessage_));
    }
  }
  for (RunInfo& info : runs)
    PS_TRY(noteGoneWriter(info));
  return runs;
}

Result<std::optional<RunInfo>> TraceStore::selectRun(std::string_view tail,
                                                     std::optional<std::int64_t> id,
                                                     bool lookAtWriter) {
  std::optional<RunInfo> info;
  {
    auto stmt = db_.prepare("SELECT " + runColumns() + " FROM run " + std::string(tail));
    if (!stmt) return std::move(stmt).takeError();
    if (id) stmt->bind(1, *id);
    auto row = stmt->step();
    if (!row) return std::move(row).takeError();
    if (*row) info = readRunRow(*stmt, hasStatusMessage_);
  }  // its read ends here, before the probe
  if (info && lookAtWriter) PS_TRY(noteGoneWriter(*info));
  return info;
}

Status TraceStore::noteGoneWriter(RunInfo& info) {
  // A writable store marked such runs in the file when it opened (markStoppedRuns). Inside a
  // transaction the read again below would see the transaction's snapshot, not a writer's last
  // commit: a writer that just finished would read as gone. The run stays 'running' then; a read
  // outside a transaction decides.
  if (!db_.readOnly() || db_.inTransaction() || info.status != RunStatus::Running ||
      locks_.probe(info.id) != RunLocks::Probe::Free)
    return {};
  // Read again after the probe: a writer commits its final status before it lets go of its
  // lock, so a row still 'running' now has no writer left (not one that just finished).
  auto again = selectRun("WHERE id=?", info.id, false);
  if (!again) return std::move(again).takeError();
  if (!*again) return {};
  info = std::move(**again);
  if (info.status != RunStatus::Running) return {};
  // What a writable open writes into the file (markStoppedRuns), said without writing: the
  // file may be in a read-only folder or on read-only media.
  info.status = RunStatus::Failed;
  info.status_message = "writer gone";
  return {};
}

Result<RunInfo> TraceStore::run(std::int64_t id) {
  auto info = selectRun("WHERE id=?", id, true);
  if (!info) return std::move(info).takeError();
  if (*info) return std::move(**info);
  auto runs = listRuns();
  if (!runs) return std::move(runs).takeError();
  return Error{path() + ": no run with id " + std::to_string(id) + " (" + idList(*runs) + ")"};
}

Result<RunInfo> TraceStore::latestRun() {
  auto info = selectRun("ORDER BY id DESC LIMIT 1", std::nullopt, true);
  if (!info) return std::move(info).takeError();
  if (!*info) return Error{path() + ": the trace holds no runs"};
  return std::move(**info);
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
