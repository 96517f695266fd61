#pragma once
// A PipeScope trace file (SQLite, schema v1). Opening checks that the file is ours and of a
// version we understand; read-only opens never modify the file.

#include <cstdint>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/TraceRecords.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

class TraceStore {
 public:
  enum class Mode { ReadOnly, ReadWrite };

  // ReadOnly: the file must exist and be a PipeScope trace. ReadWrite: creates the file and the
  // schema when missing or empty, migrates an older version, refuses a foreign SQLite file.
  static Result<TraceStore> open(const std::string& path, Mode mode);

  TraceStore(TraceStore&&) noexcept = default;
  TraceStore& operator=(TraceStore&&) noexcept = default;
  ~TraceStore();

  // Every run in the file, by id.
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

 private:
  explicit TraceStore(SqliteDb db) : db_(std::move(db)) {}
  Status checkOurs();
  Status initWritable();

  SqliteDb db_;
  int schemaVersion_ = 0;
};

// Reads a run row from a statement selecting kRunColumns.
RunInfo readRunRow(const SqliteStatement& stmt);
inline constexpr std::string_view kRunColumns =
    "id, name, created_utc, source, schedule, num_ranks, num_stages, num_microbatches, "
    "config_json, status, status_message";

}  // namespace ps::trace
