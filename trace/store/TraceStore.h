#pragma once
// A PipeScope trace file (SQLite, schema v1). Opening checks that the file is ours and of a
// version we understand; read-only opens never modify the file.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/TraceRecords.h"
#include "trace/store/RunLock.h"
#include "trace/store/RunRow.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

class TraceStore {
 public:
  enum class Mode { ReadOnly, ReadWrite };

  // ReadOnly: the file must exist and be a PipeScope trace. ReadWrite: creates the file and the
  // schema when missing or empty (under SQLite's write lock, so writers racing to create one new
  // file all succeed), migrates an older version, refuses a foreign SQLite file. Every check comes
  // before the first change: a refused file keeps its bytes. A writable open then marks 'running'
  // runs whose writer is gone (RunLocks) failed with the message "writer stopped".
  static Result<TraceStore> open(const std::string& path, Mode mode);

  TraceStore(TraceStore&& other) noexcept;
  TraceStore& operator=(TraceStore&& other) noexcept;
  ~TraceStore();

  // Every run in the file, by id. Read-only, these three say "failed: writer gone" for a run
  // still 'running' in the file whose writer no longer holds its lock (killed); the file is not
  // written (a writable open marks such runs in the file instead, "writer stopped").
  Result<std::vector<RunInfo>> listRuns();
  // One run; an error names the file and lists the ids it holds.
  Result<RunInfo> run(std::int64_t id);
  // The newest run (highest id); an error when the file holds none.
  Result<RunInfo> latestRun();
  // Ranks of a run, by rank.
  Result<std::vector<RankInfo>> ranks(std::int64_t runId);
  // Deletes a run and all its rows in one transaction.
  Status deleteRun(std::int64_t runId);

  SqliteDb& db() { return db_; }
  const std::string& path() const { return db_.path(); }
  int schemaVersion() const { return schemaVersion_; }
  // Problems found while opening that did not stop it, one line each naming the file.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Whether the file has the optional `run.status_message` column (DESIGN §4 extensions).
  bool hasStatusMessage() const { return hasStatusMessage_; }
  // Adds the optional columns a v1 file written by another tool may lack. Writers call it inside
  // the transaction of their first write, so that opening for writing alone changes nothing.
  Status addMissingColumns();
  // The run-lock descriptors of this file (RunLocks); writers lock their run through them.
  const RunLocks& runLocks() const { return locks_; }

 private:
  TraceStore(SqliteDb db, RunLocks locks) : locks_(std::move(locks)), db_(std::move(db)) {}
  static Result<TraceStore> openOnce(const std::string& path, Mode mode);
  Status checkOurs(const std::vector<std::string>& names);
  Status initWritable();
  Status createIfEmpty(bool& created);
  Status switchToWal();
  Status markStoppedRuns();
  // Read-only: a 'running' run whose writer is gone (its RunLocks byte free) becomes failed,
  // "writer gone", in `info` only.
  Status noteGoneWriter(RunInfo& info);
  // The first run row of "SELECT <run columns> FROM run <tail>" (`id` bound to its ?), if any,
  // its writer looked at (noteGoneWriter) when `lookAtWriter`.
  Result<std::optional<RunInfo>> selectRun(std::string_view tail, std::optional<std::int64_t> id,
                                           bool lookAtWriter);
  Status readOptionalColumns();
  void closeConnection();
  std::string runColumns();

  // Declared before db_: the connection closes first, then the descriptors (see RunLocks).
  RunLocks locks_;
  SqliteDb db_;
  int schemaVersion_ = 0;
  bool hasStatusMessage_ = false;
  bool writable_ = false;  // set once a writable open has passed every check
  std::vector<std::string> warnings_;
};

}  // namespace ps::trace
