#include "trace/store/TraceReader.h"

#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "trace/store/OpCache.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

constexpr std::int64_t kMaxRank = 1'000'000;  // the highest rank index a row may name

// Interns op names so each op carries an int32 instead of a string.
class NameTable {
 public:
  explicit NameTable(std::vector<std::string>& names) : names_(names) {}
  std::int32_t intern(std::string_view name) {
    auto it = index_.find(std::string(name));
    if (it != index_.end()) return it->second;
    const auto id = static_cast<std::int32_t>(names_.size());
    names_.emplace_back(name);
    index_.emplace(names_.back(), id);
    return id;
  }

 private:
  std::vector<std::string>& names_;
  std::unordered_map<std::string, std::int32_t> index_;
};

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

RankTrace& rankSlot(RunTrace& run, int rank) {
  while (static_cast<int>(run.ranks.size()) <= rank) {
    RankTrace r;
    r.info.rank = static_cast<int>(run.ranks.size());
    run.ranks.push_back(std::move(r));
  }
  return run.ranks[rank];
}

// What the loader left out or adjusted, counted while reading and reported once per kind.
struct LoadCounts {
  std::int64_t opsOutOfRange = 0;  // a start or end beyond ±kMaxAbsTimeNs
  std::int64_t opsBackwards = 0;   // end < start: end set to start
  std::int64_t opsBadStep = 0;     // step outside 0..INT32_MAX
  std::int64_t memoryOutOfRange = 0;
  std::int64_t memoryBadRank = 0;
  std::optional<OpRowRange> opRows;  // the run's op rowid range, when it has ops
  bool opsFromCache = false;
  bool opsRepaired() const { return opsOutOfRange || opsBackwards || opsBadStep; }
};

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

Status cancelled(const TraceStore& store) {
  return Error{store.path() + ": loading cancelled"};
}

// One run's rows of `table` occupy a (mostly) contiguous rowid range, found through the run
// index in O(log n). Scanning that range in rowid order is as fast as a bare table scan, where
// reading through the index would seek once per row. Two ORDER BY ... LIMIT 1 lookups: a single
// min()/max() query would scan every index entry of the run.
Result<std::optional<std::pair<std::int64_t, std::int64_t>>> rowidRange(SqliteDb& db,
                                                                        const std::string& table,
                                                                        std::int64_t runId) {
  using Range = std::optional<std::pair<std::int64_t, std::int64_t>>;
  std::int64_t edges[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    auto q = db.prepare("SELECT rowid FROM " + table + " WHERE run_id=? ORDER BY rowid" +
                        (i ? " DESC" : "") + " LIMIT 1");
    if (!q) return std::move(q).takeError();
    q->bind(1, runId);
    auto row = q->step();
    if (!row) return std::move(row).takeError();
    if (!*row) return Range{};
    edges[i] = q->int64(0);
  }
  return Range{std::pair{edges[0], edges[1]}};
}

Status loadOps(TraceStore& store, RunTrace& run, const LoadOptions& opt, LoadCounts& counts) {
  SqliteDb& db = store.db();
  auto range = rowidRange(db, "op", run.info.id);
  if (!range) return std::move(range).takeError();
  if (!*range) return {};
  const auto [first, last] = **range;
  counts.opRows = OpRowRange{first, last};
  // A stale, foreign or broken cache is not an error: the rows are the truth.
  if (opt.readCache) {
    if (auto cached = readOpCache(db, run, *counts.opRows); cached.ok() && *cached) {
      counts.opsFromCache = true;
      return {};
    }
  }

  auto stmt = db.prepare(
      "SELECT rank, kind, stage, microbatch, step, start_ns, end_ns, peer_rank, bytes, name "
      "FROM op NOT INDEXED WHERE rowid BETWEEN ? AND ? AND run_id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, first);
  stmt->bind(2, last);
  stmt->bind(3, run.info.id);
  NameTable names(run.names);
  std::size_t count = 0;
  // Ops of one rank and lane tend to come in runs; remember the last destination.
  std::int64_t lastRank = -1;
  Lane lastLane = Lane::Compute;
  OpColumns* lane = nullptr;
  for (;;) {
    const int next = stmt->stepFast();
    if (next < 0) return stmt->lastStepError();
    if (next == 0) break;
    if (opt.cancel && (++count & 0xffff) == 0 && opt.cancel->load(std::memory_order_relaxed))
      return cancelled(store);
    const std::int64_t start = stmt->int64(5);
    std::int64_t end = stmt->int64(6);
    const std::int64_t step = stmt->int64(4);
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
    const std::int64_t rank = stmt->int64(0);
    bool unknownKind = false;
    const OpKind kind = kindFromText(stmt->cText(1), unknownKind);
    if (rank != lastRank || laneOf(kind) != lastLane || !lane) {
      if (rank < 0 || rank > kMaxRank)
        return Error{store.path() + ": run " + std::to_string(run.info.id) + " has an op on rank " +
                     std::to_string(rank) + ", which is not a valid rank"};
      lastRank = rank;
      lastLane = laneOf(kind);
      lane = &rankSlot(run, static_cast<int>(rank)).lane(lastLane);
    }
    std::int32_t name = kNoValue;
    if (unknownKind)
      name = names.intern(stmt->text(1));
    else if (!stmt->isNull(9))
      name = names.intern(stmt->text(9));
    lane->push(start, end, kind, smallId(*stmt, 2), smallId(*stmt, 3),
               static_cast<std::int32_t>(step), smallId(*stmt, 7), stmt->int64Or(8, kNoValue),
               name);
  }
  for (auto& r : run.ranks)
    for (auto& columns : r.lanes)
      columns.sortByStart();
  return {};
}

Status loadMemory(TraceStore& store, RunTrace& run, LoadCounts& counts) {
  auto range = rowidRange(store.db(), "memory", run.info.id);
  if (!range) return std::move(range).takeError();
  if (!*range) return {};
  auto stmt = store.db().prepare(
      "SELECT rank, t_ns, bytes FROM memory NOT INDEXED WHERE rowid BETWEEN ? AND ? AND run_id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, (*range)->first);
  stmt->bind(2, (*range)->second);
  stmt->bind(3, run.info.id);
  for (;;) {
    const int next = stmt->stepFast();
    if (next < 0) return stmt->lastStepError();
    if (next == 0) break;
    const std::int64_t rank = stmt->int64(0);
    if (rank < 0 || rank > kMaxRank) {
      ++counts.memoryBadRank;
      continue;
    }
    const std::int64_t t = stmt->int64(1);
    if (!inTimeRange(t)) {
      ++counts.memoryOutOfRange;
      continue;
    }
    MemorySeries& m = rankSlot(run, static_cast<int>(rank)).memory;
    m.t.push_back(t);
    m.bytes.push_back(stmt->int64(2));
  }
  for (auto& r : run.ranks)
    r.memory.sortByTime();
  return {};
}

Status loadSmallTables(TraceStore& store, RunTrace& run) {
  SqliteDb& db = store.db();
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

}  // namespace

namespace {

void addWarnings(const TraceStore& store, RunTrace& run, const LoadCounts& c, int headerRanks) {
  const std::string prefix = store.path() + ": run " + std::to_string(run.info.id) + ": ";
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

}  // namespace

Result<RunTrace> loadRun(TraceStore& store, std::int64_t runId, const LoadOptions& options) {
  auto info = store.run(runId);
  if (!info) return std::move(info).takeError();
  RunTrace run;
  run.info = std::move(*info);
  run.warnings = store.warnings();
  auto ranks = store.ranks(runId);
  if (!ranks) return std::move(ranks).takeError();
  // Ranks come from the rows (rank, op, memory), never from the header's num_ranks alone: a
  // header claiming 2^31-1 ranks must not allocate them (checked against the data below).
  for (auto& rank : *ranks)
    if (rank.rank >= 0 && rank.rank <= kMaxRank) rankSlot(run, rank.rank).info = rank;
  LoadCounts counts;
  // Reads happen in one transaction so a concurrent writer's step never shows half-written.
  PS_TRY(store.db().exec("BEGIN"));
  Status s = options.withOps ? loadOps(store, run, options, counts) : Status{};
  if (s && options.withMemory) s = loadMemory(store, run, counts);
  if (s) s = loadSmallTables(store, run);
  (void)store.db().exec("COMMIT");
  if (!s) return std::move(s).takeError();
  // A large finished run read from its rows leaves a columnar copy for the next open (best
  // effort: a busy or read-only file simply keeps reading rows).
  if (counts.opRows && !counts.opsFromCache && !counts.opsRepaired() && !store.db().readOnly() &&
      run.info.status != RunStatus::Running && run.opCount() >= options.cacheFromOps)
    (void)writeOpCache(store.db(), run, *counts.opRows);
  // Without ops or memory loaded the rows seen are only the rank rows: trust the header then.
  if (options.withOps && options.withMemory) {
    addWarnings(store, run, counts, run.info.num_ranks);
    run.info.num_ranks = static_cast<int>(run.ranks.size());
  } else {
    addWarnings(store, run, counts, static_cast<int>(run.ranks.size()));
  }
  return run;
}

Result<RunTrace> loadRunFromFile(const std::string& path, std::optional<std::int64_t> runId,
                                 const LoadOptions& options) {
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  if (!store) return std::move(store).takeError();
  std::int64_t id = 0;
  if (runId) {
    id = *runId;
  } else {
    auto latest = store->latestRun();
    if (!latest) return std::move(latest).takeError();
    id = latest->id;
  }
  return loadRun(*store, id, options);
}

}  // namespace ps::trace
