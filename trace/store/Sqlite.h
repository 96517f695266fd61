#pragma once
// Thin RAII over the SQLite C API: a connection and prepared statements, errors as values that
// name the file. Nothing PipeScope-specific lives here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "trace/Result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ps::trace {

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3_stmt* stmt, std::string path) : stmt_(stmt), path_(std::move(path)) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Bind helpers: indexes start at 1 as in SQLite. Text is copied (SQLITE_TRANSIENT).
  void bindNull(int index);
  void bind(int index, std::int64_t value);
  void bind(int index, int value) { bind(index, static_cast<std::int64_t>(value)); }
  void bind(int index, double value);
  void bind(int index, std::string_view text);
  // Text that outlives the statement's use (string literals): bound without a copy.
  void bindStatic(int index, std::string_view text);
  // A blob that stays valid until the statement has run: bound without a copy.
  void bindStaticBlob(int index, const void* data, std::size_t bytes);
  template <typename T>
  void bind(int index, const std::optional<T>& value) {
    if (value)
      bind(index, *value);
    else
      bindNull(index);
  }

  // true: a row is ready; false: done. An error names the file and what SQLite said.
  Result<bool> step();
  // Hot-loop variant: 1 = row, 0 = done, -1 = error (then `lastStepError()` says what).
  int stepFast();
  Error lastStepError() const;
  // Runs a statement that returns no rows to completion (bindings are kept; rebind them all).
  Status run();
  void reset();

  bool isNull(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::string_view text(int col) const;  // valid until the next step
  // A blob column's bytes, valid until the next step ({nullptr, 0} for NULL or empty).
  std::pair<const unsigned char*, std::size_t> blob(int col) const;
  // Short NUL-free text without asking SQLite for its length (one API call instead of two).
  std::string_view cText(int col) const;
  std::optional<std::int64_t> optInt64(int col) const;
  std::optional<std::string> optText(int col) const;
  // The column as int64, or `none` when it is NULL (one type check only for zero values).
  std::int64_t int64Or(int col, std::int64_t none) const;

  sqlite3_stmt* handle() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string path_;
  int lastRc_ = 0;
};

class SqliteDb {
 public:
  enum class Mode { ReadOnly, ReadWriteCreate };

  // Opens (ReadOnly: the file must exist and is never modified). A ReadOnly open of a WAL-mode
  // file whose -shm cannot be created or written (read-only media, a copied file with a stale
  // -wal) falls back to SQLite's immutable mode, which reads the main file only; `immutable()` and
  // `openWarning()` then say so.
  static Result<SqliteDb> open(const std::string& path, Mode mode);

  SqliteDb() = default;
  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  Status exec(std::string_view sql);
  Result<SqliteStatement> prepare(std::string_view sql);
  // Error for the last failed call, as "FILE: <what>: <sqlite message>", with the common SQLite
  // failure codes translated into words a user understands.
  Error lastError(std::string_view what) const;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  bool readOnly() const { return readOnly_; }
  bool immutable() const { return immutable_; }
  // Inside an explicit transaction (BEGIN ... COMMIT): reads see the snapshot it took.
  bool inTransaction() const;
  // "PATH: ..." when the open succeeded in a degraded way (immutable fallback with a non-empty
  // -wal that is not read); empty otherwise.
  const std::string& openWarning() const { return openWarning_; }
  std::int64_t lastInsertRowId() const;
  // Extended result code of the last failed call.
  int lastErrorCode() const;
  // Whether `table` has `column` (PRAGMA table_info); false for a missing table.
  Result<bool> hasColumn(std::string_view table, std::string_view column);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  bool readOnly_ = true;
  bool immutable_ = false;
  std::string openWarning_;
};

// An IMMEDIATE transaction that rolls back unless committed: every write path uses it, so a
// failure part-way never leaves half a batch in the file.
class SqliteTransaction {
 public:
  static Result<SqliteTransaction> begin(SqliteDb& db);
  SqliteTransaction(SqliteTransaction&& other) noexcept;
  SqliteTransaction& operator=(SqliteTransaction&&) = delete;
  ~SqliteTransaction();
  Status commit();

 private:
  explicit SqliteTransaction(SqliteDb* db) : db_(db) {}
  SqliteDb* db_ = nullptr;
};

// "FILE: <what>: <explanation>" for a SQLite result code and message.
Error sqliteError(const std::string& path, std::string_view what, int code, std::string_view msg);

}  // namespace ps::trace
