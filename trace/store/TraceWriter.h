#pragma once
// Appends one run to a trace file. Recorders buffer ops per rank and hand them over once per
// step (or per import batch); each batch is one transaction, so a killed writer leaves every
// completed batch readable and the run's status still 'running'.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/TraceRecords.h"
#include "trace/store/RunLock.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

class TraceStore;

// Everything recorded for one step (or import batch), written in one transaction.
struct TraceBatch {
  std::vector<OpRecord> ops;
  std::vector<MemorySample> memory;
  std::vector<MetricRecord> metrics;
  bool empty() const { return ops.empty() && memory.empty() && metrics.empty(); }
  void clear() {
    ops.clear();
    memory.clear();
    metrics.clear();
  }
};

// The static description of a run, written with the run row.
struct RunHeader {
  RunInfo info;
  std::vector<RankInfo> ranks;
  std::vector<StageRecord> stages;
  std::vector<LayerRecord> layers;
};

class TraceWriter {
 public:
  // Inserts the run (status 'running'), its ranks, stages and layers in one transaction, adding
  // any optional column the file lacks in that same transaction. Holds the run's lock (RunLocks)
  // until finish() or destruction, so other writers can tell this run from a killed writer's.
  static Result<TraceWriter> begin(TraceStore& store, const RunHeader& header);

  TraceWriter(TraceWriter&& other) noexcept;
  TraceWriter& operator=(TraceWriter&& other) noexcept;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter();

  std::int64_t runId() const { return runId_; }
  std::int64_t opsWritten() const { return opsWritten_; }

  // One transaction: all of it lands or none of it does.
  Status write(const TraceBatch& batch);
  Status writeOps(std::span<const OpRecord> ops);
  // Replaces config_json (e.g. once calibration has filled in measured costs).
  Status setConfigJson(const std::string& json);
  // Adds or replaces a rank's row (importers learn ranks and clock offsets as they go).
  Status upsertRank(const RankInfo& rank);
  // Sets the final status (and a message saying why, for failed/cancelled) and builds the
  // indexes the readers use. The writer may not be used afterwards.
  Status finish(RunStatus status, const std::string& message = {});

 private:
  TraceWriter(SqliteDb* db, RunLocks locks) : db_(db), locks_(std::move(locks)) {}
  void releaseLock();
  Status prepareStatements();
  Status insertOps(std::span<const OpRecord> ops);
  Status insertMemory(std::span<const MemorySample> samples);
  Status insertMetrics(std::span<const MetricRecord> metrics);

  SqliteDb* db_ = nullptr;
  std::int64_t runId_ = 0;
  std::int64_t opsWritten_ = 0;
  RunLocks locks_;
  bool locked_ = false;
  SqliteStatement insertOp_, insertOps_, insertMemory_, insertMetric_;
};

// Current time as ISO 8601 UTC, e.g. 2026-11-30T00:27:23Z.
std::string utcNowIso8601();

}  // namespace ps::trace
