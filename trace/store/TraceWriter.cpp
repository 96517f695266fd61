#include "trace/store/TraceWriter.h"

#include <chrono>
#include <ctime>
#include <utility>

#include "trace/store/Schema.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

Status insertRank(SqliteDb& db, std::int64_t runId, const RankInfo& r) {
  auto stmt = db.prepare(
      "INSERT OR REPLACE INTO rank(run_id, rank, host, device, memory_capacity_bytes, "
      "clock_offset_ns) VALUES(?,?,?,?,?,?)");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, runId);
  stmt->bind(2, r.rank);
  stmt->bind(3, r.host);
  stmt->bind(4, r.device);
  stmt->bind(5, r.memory_capacity_bytes);
  stmt->bind(6, r.clock_offset_ns);
  return stmt->run();
}

Status insertHeaderRows(SqliteDb& db, std::int64_t runId, const RunHeader& h) {
  for (const auto& r : h.ranks)
    PS_TRY(insertRank(db, runId, r));
  auto stage = db.prepare(
      "INSERT INTO stage(run_id, stage, rank, first_layer, last_layer) VALUES(?,?,?,?,?)");
  if (!stage) return std::move(stage).takeError();
  for (const auto& s : h.stages) {
    stage->bind(1, runId);
    stage->bind(2, s.stage);
    stage->bind(3, s.rank);
    stage->bind(4, s.first_layer);
    stage->bind(5, s.last_layer);
    PS_TRY(stage->run());
  }
  auto layer = db.prepare(
      "INSERT INTO layer(run_id, layer, name, fwd_ns, bwd_ns, wgrad_ns, act_bytes, param_bytes) "
      "VALUES(?,?,?,?,?,?,?,?)");
  if (!layer) return std::move(layer).takeError();
  for (const auto& l : h.layers) {
    layer->bind(1, runId);
    layer->bind(2, l.layer);
    layer->bind(3, l.name);
    layer->bind(4, l.fwd_ns);
    layer->bind(5, l.bwd_ns);
    layer->bind(6, l.wgrad_ns);
    layer->bind(7, l.act_bytes);
    layer->bind(8, l.param_bytes);
    PS_TRY(layer->run());
  }
  return {};
}

}  // namespace

std::string utcNowIso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<TraceWriter> TraceWriter::begin(TraceStore& store, const RunHeader& header) {
  SqliteDb& db = store.db();
  if (db.readOnly()) return Error{db.path() + ": opened read-only; cannot add a run"};
  TraceWriter writer(&db, store.runLocks());

  auto tx = SqliteTransaction::begin(db);
  if (!tx) return std::move(tx).takeError();
  // A v1 file from another tool may lack our optional columns: add them with this first write.
  PS_TRY(store.addMissingColumns());
  PS_TRY(writer.prepareStatements());
  auto run = db.prepare(
      "INSERT INTO run(name, created_utc, source, schedule, num_ranks, num_stages, "
      "num_microbatches, config_json, status) VALUES(?,?,?,?,?,?,?,?,?)");
  if (!run) return std::move(run).takeError();
  const RunInfo& info = header.info;
  run->bind(1, std::string_view(info.name));
  run->bind(2, std::string_view(info.created_utc.empty() ? utcNowIso8601() : info.created_utc));
  run->bind(3, std::string_view(info.source));
  run->bind(4, info.schedule);
  run->bind(5, info.num_ranks);
  run->bind(6, info.num_stages);
  run->bind(7, info.num_microbatches);
  run->bind(8, std::string_view(info.config_json.empty() ? "{}" : info.config_json));
  run->bind(9, runStatusName(RunStatus::Running));
  PS_TRY(run->run());
  writer.runId_ = db.lastInsertRowId();
  // Locked before the run row is visible to anyone: no other writer ever sees it 'running'
  // and unlocked while this writer lives. (Unsupported locks: the run just cannot be told apart.)
  writer.locked_ = writer.locks_.lock(writer.runId_);
  PS_TRY(insertHeaderRows(db, writer.runId_, header));
  PS_TRY(tx->commit());
  return writer;
}

TraceWriter::TraceWriter(TraceWriter&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      runId_(other.runId_),
      opsWritten_(other.opsWritten_),
      locks_(std::move(other.locks_)),
      locked_(std::exchange(other.locked_, false)),
      insertOp_(std::move(other.insertOp_)),
      insertOps_(std::move(other.insertOps_)),
      insertMemory_(std::move(other.insertMemory_)),
      insertMetric_(std::move(other.insertMetric_)) {}

TraceWriter& TraceWriter::operator=(TraceWriter&& other) noexcept {
  if (this != &other) {
    releaseLock();
    db_ = std::exchange(other.db_, nullptr);
    runId_ = other.runId_;
    opsWritten_ = other.opsWritten_;
    locks_ = std::move(other.locks_);
    locked_ = std::exchange(other.locked_, false);
    insertOp_ = std::move(other.insertOp_);
    insertOps_ = std::move(other.insertOps_);
    insertMemory_ = std::move(other.insertMemory_);
    insertMetric_ = std::move(other.insertMetric_);
  }
  return *this;
}

TraceWriter::~TraceWriter() {
  // A writer dropped without finish(): the run stays 'running' in the file, and the next writer
  // to open it sees the lock free and marks it failed ("writer stopped").
  releaseLock();
}

void TraceWriter::releaseLock() {
  if (locked_) locks_.unlock(runId_);
  locked_ = false;
}

namespace {
constexpr int kOpColumns = 11;
// Rows per multi-row INSERT: one statement execution per 32 ops instead of per op roughly
// halves the VM overhead per row.
constexpr int kOpsPerInsert = 32;

std::string opInsertSql(int rows) {
  std::string sql =
      "INSERT INTO op(run_id, rank, kind, stage, microbatch, step, start_ns, end_ns, peer_rank, "
      "bytes, name) VALUES";
  for (int r = 0; r < rows; ++r)
    sql += r ? ",(?,?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?,?)";
  return sql;
}

void bindOp(SqliteStatement& s, int base, std::int64_t runId, const OpRecord& op) {
  s.bind(base + 1, runId);
  s.bind(base + 2, op.rank);
  s.bindStatic(base + 3, opKindName(op.kind));
  s.bind(base + 4, op.stage);
  s.bind(base + 5, op.microbatch);
  s.bind(base + 6, op.step);
  s.bind(base + 7, op.start_ns);
  s.bind(base + 8, op.end_ns);
  s.bind(base + 9, op.peer_rank);
  s.bind(base + 10, op.bytes);
  s.bind(base + 11, op.name);
}
}  // namespace

Status TraceWriter::prepareStatements() {
  auto op = db_->prepare(opInsertSql(1));
  if (!op) return std::move(op).takeError();
  insertOp_ = std::move(*op);
  auto many = db_->prepare(opInsertSql(kOpsPerInsert));
  if (!many) return std::move(many).takeError();
  insertOps_ = std::move(*many);
  auto mem = db_->prepare("INSERT INTO memory(run_id, rank, t_ns, bytes) VALUES(?,?,?,?)");
  if (!mem) return std::move(mem).takeError();
  insertMemory_ = std::move(*mem);
  auto metric =
      db_->prepare("INSERT INTO metric(run_id, step, rank, name, value) VALUES(?,?,?,?,?)");
  if (!metric) return std::move(metric).takeError();
  insertMetric_ = std::move(*metric);
  return {};
}

Status TraceWriter::insertOps(std::span<const OpRecord> ops) {
  std::size_t i = 0;
  for (; i + kOpsPerInsert <= ops.size(); i += kOpsPerInsert) {
    for (int r = 0; r < kOpsPerInsert; ++r)
      bindOp(insertOps_, r * kOpColumns, runId_, ops[i + r]);
    PS_TRY(insertOps_.run());
  }
  for (; i < ops.size(); ++i) {
    bindOp(insertOp_, 0, runId_, ops[i]);
    PS_TRY(insertOp_.run());
  }
  opsWritten_ += static_cast<std::int64_t>(ops.size());
  return {};
}

Status TraceWriter::insertMemory(std::span<const MemorySample> samples) {
  for (const MemorySample& m : samples) {
    insertMemory_.bind(1, runId_);
    insertMemory_.bind(2, m.rank);
    insertMemory_.bind(3, m.t_ns);
    insertMemory_.bind(4, m.bytes);
    PS_TRY(insertMemory_.run());
  }
  return {};
}

Status TraceWriter::insertMetrics(std::span<const MetricRecord> metrics) {
  for (const MetricRecord& m : metrics) {
    insertMetric_.bind(1, runId_);
    insertMetric_.bind(2, m.step);
    insertMetric_.bind(3, m.rank);
    insertMetric_.bind(4, std::string_view(m.name));
    insertMetric_.bind(5, m.value);
    PS_TRY(insertMetric_.run());
  }
  return {};
}

Status TraceWriter::write(const TraceBatch& batch) {
  auto tx = SqliteTransaction::begin(*db_);
  if (!tx) return std::move(tx).takeError();
  const std::int64_t before = opsWritten_;
  Status s = insertOps(batch.ops);
  if (s) s = insertMemory(batch.memory);
  if (s) s = insertMetrics(batch.metrics);
  if (s) s = tx->commit();
  if (!s) opsWritten_ = before;
  return s;
}

Status TraceWriter::writeOps(std::span<const OpRecord> ops) {
  auto tx = SqliteTransaction::begin(*db_);
  if (!tx) return std::move(tx).takeError();
  const std::int64_t before = opsWritten_;
  Status s = insertOps(ops);
  if (s) s = tx->commit();
  if (!s) opsWritten_ = before;
  return s;
}

Status TraceWriter::setConfigJson(const std::string& json) {
  auto stmt = db_->prepare("UPDATE run SET config_json=? WHERE id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, std::string_view(json));
  stmt->bind(2, runId_);
  return stmt->run();
}

Status TraceWriter::upsertRank(const RankInfo& rank) {
  return insertRank(*db_, runId_, rank);
}

Status TraceWriter::finish(RunStatus status, const std::string& message) {
  auto tx = SqliteTransaction::begin(*db_);
  if (!tx) return std::move(tx).takeError();
  auto stmt = db_->prepare("UPDATE run SET status=?, status_message=? WHERE id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, runStatusName(status));
  if (message.empty())
    stmt->bindNull(2);
  else
    stmt->bind(2, std::string_view(message));
  stmt->bind(3, runId_);
  PS_TRY(stmt->run());
  PS_TRY(createIndexes(*db_));
  PS_TRY(tx->commit());
  // Only now, with the final status committed: a writer opening the file meanwhile saw the lock.
  releaseLock();
  return {};
}

}  // namespace ps::trace
