#include "trace/store/TraceReader.h"

#include <string_view>
#include <unordered_map>

#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

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

std::int32_t optInt32(const SqliteStatement& s, int col) {
  return s.isNull(col) ? kNoValue : static_cast<std::int32_t>(s.int64(col));
}

RankTrace& rankSlot(RunTrace& run, int rank) {
  while (static_cast<int>(run.ranks.size()) <= rank) {
    RankTrace r;
    r.info.rank = static_cast<int>(run.ranks.size());
    run.ranks.push_back(std::move(r));
  }
  return run.ranks[rank];
}

Status cancelled(const TraceStore& store) {
  return Error{store.path() + ": loading cancelled"};
}

Status loadOps(TraceStore& store, RunTrace& run, const LoadOptions& opt) {
  SqliteDb& db = store.db();
  // One run's ops occupy a (mostly) contiguous rowid range: find it through the run index, then
  // scan that range in rowid order, which is as fast as a bare table scan.
  auto range = db.prepare("SELECT min(rowid), max(rowid) FROM op WHERE run_id=?");
  if (!range) return std::move(range).takeError();
  range->bind(1, run.info.id);
  auto row = range->step();
  if (!row) return std::move(row).takeError();
  if (range->isNull(0)) return {};
  const std::int64_t first = range->int64(0), last = range->int64(1);

  auto stmt = db.prepare(
      "SELECT rank, kind, stage, microbatch, step, start_ns, end_ns, peer_rank, bytes, name "
      "FROM op WHERE rowid BETWEEN ? AND ? AND run_id=?");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, first);
  stmt->bind(2, last);
  stmt->bind(3, run.info.id);
  NameTable names(run.names);
  std::size_t count = 0;
  for (;;) {
    auto next = stmt->step();
    if (!next) return std::move(next).takeError();
    if (!*next) break;
    if (opt.cancel && (++count & 0xffff) == 0 && opt.cancel->load(std::memory_order_relaxed))
      return cancelled(store);
    const std::int64_t rank = stmt->int64(0);
    if (rank < 0 || rank > 1'000'000)
      return Error{store.path() + ": run " + std::to_string(run.info.id) + " has an op on rank " +
                   std::to_string(rank) + ", which is not a valid rank"};
    bool unknownKind = false;
    const OpKind kind = kindFromText(stmt->text(1), unknownKind);
    std::int32_t name = kNoValue;
    if (unknownKind)
      name = names.intern(stmt->text(1));
    else if (!stmt->isNull(9))
      name = names.intern(stmt->text(9));
    const std::int64_t start = stmt->int64(5);
    std::int64_t end = stmt->int64(6);
    if (end < start) end = start;  // a negative duration is a recorder bug; keep the op visible
    rankSlot(run, static_cast<int>(rank))
        .lane(laneOf(kind))
        .push(start, end, kind, optInt32(*stmt, 2), optInt32(*stmt, 3),
              static_cast<std::int32_t>(stmt->int64(4)), optInt32(*stmt, 7),
              stmt->isNull(8) ? kNoValue : stmt->int64(8), name);
  }
  for (auto& r : run.ranks)
    for (auto& lane : r.lanes)
      lane.sortByStart();
  return {};
}

Status loadMemory(TraceStore& store, RunTrace& run) {
  auto stmt =
      store.db().prepare("SELECT rank, t_ns, bytes FROM memory WHERE run_id=? ORDER BY rank, t_ns");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, run.info.id);
  for (;;) {
    auto next = stmt->step();
    if (!next) return std::move(next).takeError();
    if (!*next) break;
    const std::int64_t rank = stmt->int64(0);
    if (rank < 0 || rank > 1'000'000) continue;
    MemorySeries& m = rankSlot(run, static_cast<int>(rank)).memory;
    m.t.push_back(stmt->int64(1));
    m.bytes.push_back(stmt->int64(2));
  }
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

Result<RunTrace> loadRun(TraceStore& store, std::int64_t runId, const LoadOptions& options) {
  auto info = store.run(runId);
  if (!info) return std::move(info).takeError();
  RunTrace run;
  run.info = std::move(*info);
  auto ranks = store.ranks(runId);
  if (!ranks) return std::move(ranks).takeError();
  for (int r = 0; r < run.info.num_ranks && r <= 1'000'000; ++r)
    rankSlot(run, r);
  for (auto& rank : *ranks)
    if (rank.rank >= 0 && rank.rank <= 1'000'000) rankSlot(run, rank.rank).info = rank;
  // Reads happen in one transaction so a concurrent writer's step never shows half-written.
  PS_TRY(store.db().exec("BEGIN"));
  Status s = options.withOps ? loadOps(store, run, options) : Status{};
  if (s && options.withMemory) s = loadMemory(store, run);
  if (s) s = loadSmallTables(store, run);
  (void)store.db().exec("COMMIT");
  if (!s) return std::move(s).takeError();
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
