#include "trace/store/RunRows.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace ps::trace {
namespace {

// Kind text → OpKind without allocating; unknown kinds (a newer writer's) load as OTHER with the
// kind text kept as the op's name, so nothing is lost.
OpKind kindFromText(std::string_view text, bool& unknown) {
  unknown = false;
  if (text.size() == 1) {
    switch (text[0]) {
      case 'F':
        return OpKind::F;
      case 'B':
        return OpKind::B;
      case 'I':
        return OpKind::I;
      case 'W':
        return OpKind::W;
      case 'R':
        return OpKind::R;
      default:
        break;
    }
  }
  if (auto k = parseOpKind(text)) return *k;
  unknown = true;
  return OpKind::OTHER;
}

bool inTimeRange(std::int64_t t) {
  return t >= -kMaxAbsTimeNs && t <= kMaxAbsTimeNs;
}

// Stage, micro-batch and peer are int32 in memory: anything negative or wider is "none" rather
// than a truncated, wrong number.
std::int32_t smallId(const SqliteStatement& s, int col) {
  const std::int64_t v = s.int64Or(col, kNoValue);
  return v >= 0 && v <= std::numeric_limits<std::int32_t>::max() ? static_cast<std::int32_t>(v)
                                                                 : kNoValue;
}

}  // namespace

Status appendOpRows(SqliteStatement& stmt, RunTrace& run, OpNameTable& names, LoadCounts& counts,
                    RowCursor& cursor, const std::atomic<bool>* cancel, const std::string& path) {
  std::size_t count = 0;
  // Ops of one rank and lane tend to come in runs; remember the last destination.
  std::int64_t lastRank = -1;
  Lane lastLane = Lane::Compute;
  OpColumns* lane = nullptr;
  for (;;) {
    const int next = stmt.stepFast();
    if (next < 0) return stmt.lastStepError();
    if (next == 0) break;
    if (cancel && (++count & 0xffff) == 0 && cancel->load(std::memory_order_relaxed))
      return Error{path + ": loading cancelled"};
    cursor.op = std::max(cursor.op, stmt.int64(10));
    const std::int64_t start = stmt.int64(5);
    std::int64_t end = stmt.int64(6);
    const std::int64_t step = stmt.int64(4);
    if (!inTimeRange(start) || !inTimeRange(end)) {
      ++counts.opsOutOfRange;
      continue;
    }
    if (step < 0 || step > std::numeric_limits<std::int32_t>::max()) {
      ++counts.opsBadStep;
      continue;
    }
    if (end < start) {
      end = start;  // a negative duration is a recorder bug; keep the op visible
      ++counts.opsBackwards;
    }
    const std::int64_t rank = stmt.int64(0);
    bool unknownKind = false;
    const OpKind kind = kindFromText(stmt.cText(1), unknownKind);
    if (rank != lastRank || laneOf(kind) != lastLane || !lane) {
      if (rank < 0 || rank > kMaxRank)
        return Error{path + ": run " + std::to_string(run.info.id) + " has an op on rank " +
                     std::to_string(rank) + ", which is not a valid rank"};
      lastRank = rank;
      lastLane = laneOf(kind);
      lane = &rankSlot(run, static_cast<int>(rank)).lane(lastLane);
    }
    std::int32_t name = kNoValue;
    if (unknownKind)
      name = names.intern(stmt.text(1));
    else if (!stmt.isNull(9))
      name = names.intern(stmt.text(9));
    lane->push(start, end, kind, smallId(stmt, 2), smallId(stmt, 3),
               static_cast<std::int32_t>(step), smallId(stmt, 7), stmt.int64Or(8, kNoValue), name);
  }
  return {};
}

Status appendMemoryRows(SqliteStatement& stmt, RunTrace& run, LoadCounts& counts,
                        RowCursor& cursor) {
  for (;;) {
    const int next = stmt.stepFast();
    if (next < 0) return stmt.lastStepError();
    if (next == 0) break;
    cursor.memory = std::max(cursor.memory, stmt.int64(3));
    const std::int64_t rank = stmt.int64(0);
    if (rank < 0 || rank > kMaxRank) {
      ++counts.memoryBadRank;
      continue;
    }
    const std::int64_t t = stmt.int64(1);
    if (!inTimeRange(t)) {
      ++counts.memoryOutOfRange;
      continue;
    }
    MemorySeries& m = rankSlot(run, static_cast<int>(rank)).memory;
    m.t.push_back(t);
    m.bytes.push_back(stmt.int64(2));
  }
  return {};
}

void sortRows(RunTrace& run) {
  for (auto& r : run.ranks) {
    for (auto& columns : r.lanes)
      columns.sortByStart();
    r.memory.sortByTime();
  }
}

Status loadSmallTables(SqliteDb& db, RunTrace& run) {
  run.stages.clear();
  run.layers.clear();
  run.metrics.clear();
  auto stages = db.prepare(
      "SELECT stage, rank, first_layer, last_layer FROM stage WHERE run_id=? ORDER BY stage, rank");
  if (!stages) return std::move(stages).takeError();
  stages->bind(1, run.info.id);
  for (;;) {
    auto next = stages->step();
    if (!next) return std::move(next).takeError();
    if (!*next) break;
    run.stages.push_back({static_cast<int>(stages->int64(0)), static_cast<int>(stages->int64(1)),
                          static_cast<int>(stages->int64(2)), static_cast<int>(stages->int64(3))});
  }
  auto layers = db.prepare(
      "SELECT layer, name, fwd_ns, bwd_ns, wgrad_ns, act_bytes, param_bytes FROM layer "
      "WHERE run_id=? ORDER BY layer");
  if (!layers) return std::move(layers).takeError();
  layers->bind(1, run.info.id);
  for (;;) {
    auto next = layers->step();
    if (!next) return std::move(next).takeError();
    if (!*next) break;
    LayerRecord l;
    l.layer = static_cast<int>(layers->int64(0));
    l.name = layers->optText(1);
    l.fwd_ns = layers->optInt64(2);
    l.bwd_ns = layers->optInt64(3);
    l.wgrad_ns = layers->optInt64(4);
    l.act_bytes = layers->optInt64(5);
    l.param_bytes = layers->optInt64(6);
    run.layers.push_back(std::move(l));
  }
  auto metrics = db.prepare(
      "SELECT step, rank, name, value FROM metric WHERE run_id=? ORDER BY name, step, rowid");
  if (!metrics) return std::move(metrics).takeError();
  metrics->bind(1, run.info.id);
  for (;;) {
    auto next = metrics->step();
    if (!next) return std::move(next).takeError();
    if (!*next) break;
    MetricRecord m;
    m.step = static_cast<int>(metrics->int64(0));
    if (auto r = metrics->optInt64(1)) m.rank = static_cast<int>(*r);
    m.name = std::string(metrics->text(2));
    m.value = metrics->real(3);
    run.metrics.push_back(std::move(m));
  }
  return {};
}

void addLoadWarnings(const std::string& path, RunTrace& run, const LoadCounts& c, int headerRanks) {
  const std::string prefix = path + ": run " + std::to_string(run.info.id) + ": ";
  const std::string range = " outside ±" + std::to_string(kMaxAbsTimeNs) +
                            " ns (±2^52, about 52 days) of the run's start: not loaded";
  if (c.opsOutOfRange)
    run.warnings.push_back(prefix + std::to_string(c.opsOutOfRange) + " op(s) start or end" +
                           range);
  if (c.opsBadStep)
    run.warnings.push_back(prefix + std::to_string(c.opsBadStep) +
                           " op(s) with a step outside 0..2147483647: not loaded");
  if (c.opsBackwards)
    run.warnings.push_back(prefix + std::to_string(c.opsBackwards) +
                           " op(s) end before they start: end set to start");
  if (c.memoryOutOfRange)
    run.warnings.push_back(prefix + std::to_string(c.memoryOutOfRange) + " memory sample(s)" +
                           range);
  if (c.memoryBadRank)
    run.warnings.push_back(prefix + std::to_string(c.memoryBadRank) +
                           " memory sample(s) on a rank outside 0.." + std::to_string(kMaxRank) +
                           ": not loaded");
  const int dataRanks = static_cast<int>(run.ranks.size());
  if (headerRanks != dataRanks)
    run.warnings.push_back(prefix + "the run says " + std::to_string(headerRanks) +
                           (headerRanks == 1 ? " rank" : " ranks") +
                           " but its ops, rank rows and memory name " + std::to_string(dataRanks) +
                           ": " + std::to_string(dataRanks) + " loaded");
}

}  // namespace ps::trace
