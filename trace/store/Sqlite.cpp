#include "trace/store/Sqlite.h"

#include <sqlite3.h>

#include <filesystem>
#include <utility>

namespace ps::trace {

Error sqliteError(const std::string& path, std::string_view what, int code, std::string_view msg) {
  std::string explanation;
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      explanation = "not a SQLite database";
      break;
    case SQLITE_CORRUPT:
      explanation = "the file is corrupt or truncated (" + std::string(msg) + ")";
      break;
    case SQLITE_CANTOPEN:
      explanation = "cannot open the file (" + std::string(msg) + ")";
      break;
    case SQLITE_READONLY:
      explanation = "the file is read-only (" + std::string(msg) + ")";
      break;
    case SQLITE_FULL:
      explanation = "the disk is full";
      break;
    case SQLITE_BUSY:
      explanation = "the file is locked by another process";
      break;
    default:
      explanation = std::string(msg);
  }
  std::string text = path + ": ";
  if (!what.empty()) text += std::string(what) + ": ";
  return Error{text + explanation};
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), path_(std::move(other.path_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

void SqliteStatement::bindNull(int index) {
  sqlite3_bind_null(stmt_, index);
}
void SqliteStatement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}
void SqliteStatement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
}
void SqliteStatement::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bindStatic(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

std::int64_t SqliteStatement::int64Or(int col, std::int64_t none) const {
  const std::int64_t v = sqlite3_column_int64(stmt_, col);
  if (v == 0 && sqlite3_column_type(stmt_, col) == SQLITE_NULL) return none;
  return v;
}

int SqliteStatement::stepFast() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return 1;
  if (rc == SQLITE_DONE) return 0;
  lastRc_ = rc;
  return -1;
}

Error SqliteStatement::lastStepError() const {
  return sqliteError(path_, "", lastRc_, sqlite3_errmsg(sqlite3_db_handle(stmt_)));
}

Result<bool> SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3* db = sqlite3_db_handle(stmt_);
  return sqliteError(path_, "", rc, sqlite3_errmsg(db));
}

Status SqliteStatement::run() {
  for (;;) {
    auto row = step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
  }
  sqlite3_reset(stmt_);
  return {};
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool SqliteStatement::isNull(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
std::int64_t SqliteStatement::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double SqliteStatement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}
std::string_view SqliteStatement::text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
}
std::string_view SqliteStatement::cText(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string_view(p) : std::string_view();
}

std::optional<std::int64_t> SqliteStatement::optInt64(int col) const {
  if (isNull(col)) return std::nullopt;
  return int64(col);
}
std::optional<std::string> SqliteStatement::optText(int col) const {
  if (isNull(col)) return std::nullopt;
  return std::string(text(col));
}

Result<SqliteDb> SqliteDb::open(const std::string& path, Mode mode) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (mode == Mode::ReadOnly && !fs::exists(path, ec)) return Error{path + ": no such file"};
  if (fs::is_directory(path, ec)) return Error{path + ": is a directory, not a trace file"};

  SqliteDb db;
  db.path_ = path;
  db.readOnly_ = mode == Mode::ReadOnly;
  const int flags =
      db.readOnly_ ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  const int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Error err = sqliteError(path, "open", rc, db.db_ ? sqlite3_errmsg(db.db_) : "out of memory");
    return err;
  }
  sqlite3_extended_result_codes(db.db_, 1);
  sqlite3_busy_timeout(db.db_, 5000);
  return db;
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      readOnly_(other.readOnly_) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    readOnly_ = other.readOnly_;
  }
  return *this;
}

SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

Status SqliteDb::exec(std::string_view sql) {
  std::string text(sql);
  char* msg = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    std::string m = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return sqliteError(path_, "", rc, m);
  }
  return {};
}

Result<SqliteStatement> SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return sqliteError(path_, "", rc, sqlite3_errmsg(db_));
  return SqliteStatement(stmt, path_);
}

Error SqliteDb::lastError(std::string_view what) const {
  return sqliteError(path_, what, sqlite3_extended_errcode(db_), sqlite3_errmsg(db_));
}

std::int64_t SqliteDb::lastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

Result<SqliteTransaction> SqliteTransaction::begin(SqliteDb& db) {
  PS_TRY(db.exec("BEGIN IMMEDIATE"));
  return SqliteTransaction(&db);
}

SqliteTransaction::SqliteTransaction(SqliteTransaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

SqliteTransaction::~SqliteTransaction() {
  if (db_) (void)db_->exec("ROLLBACK");
}

Status SqliteTransaction::commit() {
  SqliteDb* db = std::exchange(db_, nullptr);
  Status s = db->exec("COMMIT");
  if (!s) (void)db->exec("ROLLBACK");
  return s;
}

}  // namespace ps::trace
