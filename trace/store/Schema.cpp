#include "trace/store/Schema.h"

#include <string>

#include "trace/store/Sqlite.h"

namespace ps::trace {
namespace {

// Types and NOT NULLs beyond DESIGN §4 only tighten it; `run.status_message` is an extension
// (DESIGN lets the contract grow) that says why a run failed or was cancelled.
constexpr std::string_view kCreateV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE run(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_utc TEXT NOT NULL,
  source TEXT NOT NULL, schedule TEXT,
  num_ranks INTEGER NOT NULL, num_stages INTEGER, num_microbatches INTEGER,
  config_json TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL, status_message TEXT);
CREATE TABLE rank(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, host TEXT, device TEXT,
  memory_capacity_bytes INTEGER, clock_offset_ns INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(run_id, rank));
CREATE TABLE op(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, kind TEXT NOT NULL,
  stage INTEGER, microbatch INTEGER, step INTEGER NOT NULL DEFAULT 0,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  peer_rank INTEGER, bytes INTEGER, name TEXT);
CREATE TABLE memory(run_id INTEGER NOT NULL, rank INTEGER NOT NULL, t_ns INTEGER NOT NULL,
  bytes INTEGER NOT NULL);
CREATE TABLE layer(run_id INTEGER NOT NULL, layer INTEGER NOT NULL, name TEXT,
  fwd_ns INTEGER, bwd_ns INTEGER, wgrad_ns INTEGER, act_bytes INTEGER, param_bytes INTEGER,
  PRIMARY KEY(run_id, layer));
CREATE TABLE stage(run_id INTEGER NOT NULL, stage INTEGER NOT NULL, rank INTEGER NOT NULL,
  first_layer INTEGER NOT NULL, last_layer INTEGER NOT NULL);
CREATE TABLE metric(run_id INTEGER NOT NULL, step INTEGER NOT NULL, rank INTEGER,
  name TEXT NOT NULL, value REAL);
)sql";

// op_by_run lets a reader find one run's rowid range in O(log n) (see TraceReader).
constexpr std::string_view kIndexes = R"sql(
CREATE INDEX IF NOT EXISTS op_by_run ON op(run_id);
CREATE INDEX IF NOT EXISTS memory_by_run ON memory(run_id);
CREATE INDEX IF NOT EXISTS metric_by_run ON metric(run_id, name, step);
CREATE INDEX IF NOT EXISTS stage_by_run ON stage(run_id, stage);
)sql";

}  // namespace

const std::vector<std::string_view>& requiredTables() {
  static const std::vector<std::string_view> tables = {"meta",   "run",   "rank",  "op",
                                                       "memory", "layer", "stage", "metric"};
  return tables;
}

Status createSchema(SqliteDb& db, std::string_view producer) {
  PS_TRY(db.exec(kCreateV1));
  auto insert = db.prepare("INSERT INTO meta(key, value) VALUES(?, ?)");
  if (!insert) return std::move(insert).takeError();
  insert->bind(1, std::string_view("schema_version"));
  insert->bind(2, std::string_view(std::to_string(kSchemaVersion)));
  PS_TRY(insert->run());
  insert->bind(1, std::string_view("producer"));
  insert->bind(2, producer);
  return insert->run();
}

Status createIndexes(SqliteDb& db) {
  return db.exec(kIndexes);
}

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> steps;  // v1 is the first version: nothing to migrate yet
  return steps;
}

Status migrate(SqliteDb& db, int version, const std::vector<Migration>& steps) {
  while (version < kSchemaVersion) {
    const Migration* step = nullptr;
    for (const auto& m : steps)
      if (m.from == version) step = &m;
    if (!step)
      return Error{db.path() + ": schema version " + std::to_string(version) +
                   " has no migration to version " + std::to_string(version + 1)};
    auto tx = SqliteTransaction::begin(db);
    if (!tx) return std::move(tx).takeError();
    PS_TRY(step->apply(db));
    ++version;
    PS_TRY(db.exec("UPDATE meta SET value='" + std::to_string(version) +
                   "' WHERE key='schema_version'"));
    PS_TRY(tx->commit());
  }
  return {};
}

}  // namespace ps::trace
