#include "trace/store/Sqlite.h"

#include <sqlite3.h>

#include <cctype>
#include <filesystem>
#include <utility>

#include "trace/FileText.h"

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

void SqliteStatement::bindStaticBlob(int index, const void* data, std::size_t bytes) {
  sqlite3_bind_blob64(stmt_, index, data, static_cast<sqlite3_uint64>(bytes), SQLITE_STATIC);
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
std::pair<const unsigned char*, std::size_t> SqliteStatement::blob(int col) const {
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, col));
  if (!p) return {nullptr, 0};
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

namespace {

// "file:" URI of a path with every byte outside [A-Za-z0-9/._-] percent-encoded, so that '?',
// '#' and '%' in a file name stay part of it.
std::string immutableUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri + "?immutable=1";
}

// A read of the schema: the first statement that opens the -wal and -shm of a WAL-mode file.
int probeRead(sqlite3* db) {
  return sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
}

// Failures of a read-only open that mean "the -shm/-wal cannot be created or written here".
bool walAccessFailure(int rc) {
  return (rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY;
}

}  // namespace

Result<SqliteDb> SqliteDb::open(const std::string& path, Mode mode) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (mode == Mode::ReadOnly && !fs::exists(path, ec)) return Error{path + ": no such file"};
  if (fs::is_directory(path, ec)) return Error{path + ": is a directory, not a trace file"};
  // A FIFO or a device would block SQLite's open or feed it forever (issue 30, item 16).
  PS_TRY(checkRegularOrAbsent(path, "trace file"));

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
  if (db.readOnly_ && walAccessFailure(probeRead(db.db_))) {
    // Retry immutable: SQLite then reads the main file as it is and never looks for a -shm.
    sqlite3* fallback = nullptr;
    const int rc2 =
        sqlite3_open_v2(immutableUri(path).c_str(), &fallback,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc2 == SQLITE_OK && probeRead(fallback) == SQLITE_OK) {
      sqlite3_close_v2(db.db_);
      db.db_ = fallback;
      db.immutable_ = true;
      sqlite3_extended_result_codes(db.db_, 1);
      if (fs::file_size(path + "-wal", ec) > 0 && !ec)
        db.openWarning_ = path +
                          ": opened read-only without its -wal file (its -shm cannot be created "
                          "here); writes not yet checkpointed into the file are not shown";
    } else {
      sqlite3_close_v2(fallback);  // keep the first connection: its errors say more
    }
  }
  return db;
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      readOnly_(other.readOnly_),
      immutable_(other.immutable_),
      openWarning_(std::move(other.openWarning_)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    readOnly_ = other.readOnly_;
    immutable_ = other.immutable_;
    openWarning_ = std::move(other.openWarning_);
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

bool SqliteDb::inTransaction() const {
  return db_ != nullptr && sqlite3_get_autocommit(db_) == 0;
}

std::int64_t SqliteDb::lastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

int SqliteDb::lastErrorCode() const {
  return sqlite3_extended_errcode(db_);
}

Result<bool> SqliteDb::hasColumn(std::string_view table, std::string_view column) {
  auto stmt = prepare("SELECT 1 FROM pragma_table_info(?) WHERE name=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, table);
  stmt->bind(2, column);
  return stmt->step();
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
