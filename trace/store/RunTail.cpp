#include "trace/store/RunTail.h"

#include "trace/store/RunRows.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {

struct RunTail::State {
  State(TraceStore s, std::int64_t id) : store(std::move(s)), names(run.names) { run.info.id = id; }
  TraceStore store;
  RunTrace run;  // as read; info.num_ranks is the header's (snapshot() reconciles it)
  OpNameTable names;
  LoadCounts counts;
  RowCursor cursor;
  std::int64_t rows = 0;
  bool fresh = true;  // nothing read yet: the first poll reads the ranks and small tables

  Status readHeader(bool& changed);
  Status readSince(bool& changed);
  Status readOps(bool& grew);
  Status readMemory(bool& grew);
};

Status RunTail::State::readOps(bool& grew) {
  // Through the run index (run_id, rowid): only this run's rows past the cursor are touched.
  auto stmt = store.db().prepare(std::string("SELECT ") + kOpRowColumns +
                                 " FROM op WHERE run_id=? AND rowid>? ORDER BY rowid");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, run.info.id);
  stmt->bind(2, cursor.op);
  const std::int64_t before = cursor.op;
  PS_TRY(appendOpRows(*stmt, run, names, counts, cursor, nullptr, store.path()));
  grew = grew || cursor.op != before;
  return {};
}

Status RunTail::State::readMemory(bool& grew) {
  auto stmt = store.db().prepare(std::string("SELECT ") + kMemoryRowColumns +
                                 " FROM memory WHERE run_id=? AND rowid>? ORDER BY rowid");
  if (!stmt) return std::move(stmt).takeError();
  stmt->bind(1, run.info.id);
  stmt->bind(2, cursor.memory);
  const std::int64_t before = cursor.memory;
  PS_TRY(appendMemoryRows(*stmt, run, counts, cursor));
  grew = grew || cursor.memory != before;
  return {};
}

Status RunTail::State::readHeader(bool& changed) {
  // Outside the rows' transaction: whether the writer is gone is decided by reading the run row
  // again after probing its lock, and that read must see the writer's last commit, which a
  // transaction begun before it would hide (the run would read 'failed: writer gone' when the
  // writer had just finished). Read before the rows, the status is never ahead of them.
  auto info = store.run(run.info.id);
  if (!info) return std::move(info).takeError();
  changed = info->status != run.info.status || info->status_message != run.info.status_message ||
            info->num_ranks != run.info.num_ranks || info->name != run.info.name;
  run.info = std::move(*info);
  return {};
}

Status RunTail::State::readSince(bool& changed) {
  bool grew = false;
  PS_TRY(readOps(grew));
  PS_TRY(readMemory(grew));
  if (!grew && !changed && !fresh) return {};
  changed = true;
  fresh = false;
  auto ranks = store.ranks(run.info.id);
  if (!ranks) return std::move(ranks).takeError();
  for (auto& rank : *ranks)
    if (rank.rank >= 0 && rank.rank <= kMaxRank) rankSlot(run, rank.rank).info = rank;
  // Metrics come step by step too; stages and layers are the header's.
  return loadSmallTables(store.db(), run);
}

RunTail::RunTail(std::unique_ptr<State> state) : s_(std::move(state)) {}
RunTail::RunTail(RunTail&&) noexcept = default;
RunTail& RunTail::operator=(RunTail&&) noexcept = default;
RunTail::~RunTail() = default;

Result<RunTail> RunTail::open(const std::string& path, std::int64_t runId) {
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  if (!store) return std::move(store).takeError();
  RunTail tail(std::make_unique<State>(std::move(*store), runId));
  auto first = tail.poll();
  if (!first) return std::move(first).takeError();
  return tail;
}

Result<bool> RunTail::poll() {
  bool changed = false;
  PS_TRY(s_->readHeader(changed));
  // One read transaction: a writer's step (one commit) is seen whole or not at all.
  PS_TRY(s_->store.db().exec("BEGIN"));
  const std::int64_t opBefore = s_->cursor.op, memoryBefore = s_->cursor.memory;
  Status s = s_->readSince(changed);
  (void)s_->store.db().exec("COMMIT");
  if (!s) return std::move(s).takeError();
  if (s_->cursor.op != opBefore || s_->cursor.memory != memoryBefore) sortRows(s_->run);
  s_->rows = s_->run.opCount();
  for (const auto& r : s_->run.ranks)
    s_->rows += static_cast<std::int64_t>(r.memory.t.size());
  return changed;
}

RunTrace RunTail::snapshot() const {
  RunTrace run = s_->run;
  run.warnings = s_->store.warnings();
  addLoadWarnings(s_->store.path(), run, s_->counts, run.info.num_ranks);
  run.info.num_ranks = static_cast<int>(run.ranks.size());
  return run;
}

const RunInfo& RunTail::info() const {
  return s_->run.info;
}

std::int64_t RunTail::runId() const {
  return s_->run.info.id;
}

std::int64_t RunTail::rowsRead() const {
  return s_->rows;
}

}  // namespace ps::trace
