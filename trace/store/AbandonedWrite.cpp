#include "trace/store/AbandonedWrite.h"

#include <sqlite3.h>

#include <filesystem>
#include <string>

namespace ps::trace {
namespace {

constexpr int kBusyTimeoutMs = 5000;  // as SqliteDb::open sets it

Result<std::string> firstText(SqliteDb& db, std::string_view sql,
                              std::optional<std::int64_t> bound = std::nullopt) {
  auto stmt = db.prepare(sql);
  if (!stmt) return std::move(stmt).takeError();
  if (bound) stmt->bind(1, *bound);
  auto row = stmt->step();
  if (!row) return std::move(row).takeError();
  return *row ? std::string(stmt->text(0)) : std::string();
}

// Removes the file when it holds no run but `ours` and nobody else has it open; false when the
// file stays (then the connection is back to normal locking, in whatever journal mode it got).
bool removeIfAlone(SqliteDb& db, std::optional<std::int64_t> ours) {
  // No waiting: anyone else holding the file means it is not ours alone.
  sqlite3_busy_timeout(db.handle(), 0);
  // Leaving WAL mode needs the file to itself: every other connection to a WAL file holds a
  // shared lock on it for as long as it is open.
  auto mode = firstText(db, "PRAGMA journal_mode=DELETE");
  bool alone = false;
  // Exclusive locking mode keeps BEGIN EXCLUSIVE's lock until the connection closes: nobody
  // reads or writes the file between our look at it and its removal.
  if (mode && *mode == "delete" && db.exec("PRAGMA locking_mode=EXCLUSIVE") &&
      db.exec("BEGIN EXCLUSIVE")) {
    auto others = firstText(db, "SELECT count(*) FROM run WHERE id IS NOT ?", ours);
    alone = others && *others == "0" && !openedFileMoved(db);
    if (alone) {
      std::error_code ignored;
      for (const char* suffix : {"", "-journal", "-wal", "-shm"})
        std::filesystem::remove(db.path() + suffix, ignored);
    }
    (void)db.exec("ROLLBACK");  // removed: the lock stays (exclusive mode) until the close
  }
  if (!alone) (void)db.exec("PRAGMA locking_mode=NORMAL");
  sqlite3_busy_timeout(db.handle(), kBusyTimeoutMs);
  return alone;
}

}  // namespace

bool openedFileMoved(SqliteDb& db) {
  int moved = 0;  // SQLite's unix files always answer; another VFS that cannot tell says no
  if (sqlite3_file_control(db.handle(), "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
    return false;
  return moved != 0;
}

Result<AbandonedWrite> abandonWrite(TraceStore store, std::optional<std::int64_t> runId,
                                    bool createdFile) {
  AbandonedWrite out;
  if (createdFile && removeIfAlone(store.db(), runId)) {
    out.runDeleted = runId.has_value();
    out.fileRemoved = true;
    return out;
  }
  if (runId) {
    PS_TRY(store.deleteRun(*runId));
    out.runDeleted = true;
  }
  return out;
}

}  // namespace ps::trace
