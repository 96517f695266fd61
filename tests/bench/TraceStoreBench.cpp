// Trace store throughput: write 1M ops (write_ops_per_s); open a 10M-op run from its rows and from
// its columnar cache and compare with a bare sqlite3_step scan of the same rows in the same
// process (goals: rows >= 0.8 x raw scan; cached open_over_raw_scan >= 5).

#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace {

using namespace ps::trace;
using Clock = std::chrono::steady_clock;

std::string tempPath(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string("pipescope-bench-") + std::to_string(::getpid()) + "-" + name))
      .string();
}

void removeDb(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(path + suffix);
}

// A pipeline-shaped op stream: 64 ranks, F/B compute plus sends with peers and bytes.
std::vector<OpRecord> makeOps(std::size_t count, std::size_t offset) {
  std::vector<OpRecord> ops;
  ops.reserve(count);
  for (std::size_t i = offset; i < offset + count; ++i) {
    const int rank = static_cast<int>(i % 64);
    const auto t = static_cast<std::int64_t>(i / 64) * 1000;
    OpRecord op;
    op.rank = rank;
    op.step = static_cast<int>(i / 640000);
    op.stage = rank;
    op.microbatch = static_cast<int>((i / 64) % 1024);
    op.start_ns = t;
    op.end_ns = t + 900;
    switch (i % 4) {
      case 0:
        op.kind = OpKind::F;
        break;
      case 1:
        op.kind = OpKind::B;
        break;
      case 2:
        op.kind = OpKind::SEND_F;
        op.peer_rank = (rank + 1) % 64;
        op.bytes = 1 << 20;
        break;
      default:
        op.kind = OpKind::RECV_F;
        op.peer_rank = (rank + 63) % 64;
        op.bytes = 1 << 20;
    }
    ops.push_back(op);
  }
  return ops;
}

RunHeader header(int ranks) {
  RunHeader h;
  h.info.name = "bench";
  h.info.source = "sim";
  h.info.num_ranks = ranks;
  return h;
}

void BM_Write1MOps(benchmark::State& state) {
  const std::size_t n = 1'000'000, batch = 64 * 1024;
  const auto ops = makeOps(n, 0);
  double seconds = 0;
  for (auto _ : state) {
    const std::string path = tempPath("write.sqlite");
    removeDb(path);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    auto writer = TraceWriter::begin(*store, header(64));
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < n; i += batch) {
      const std::size_t len = std::min(batch, n - i);
      if (!writer->writeOps({ops.data() + i, len}).ok()) state.SkipWithError("write failed");
    }
    if (!writer->finish(RunStatus::Complete).ok()) state.SkipWithError("finish failed");
    seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    removeDb(path);
  }
  state.counters["ops_per_s"] = static_cast<double>(n * state.iterations()) / seconds;
  state.counters["write_ops_per_s"] = state.counters["ops_per_s"];
}
BENCHMARK(BM_Write1MOps)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

std::string build10M() {
  const std::string path = tempPath("load10m.sqlite");
  removeDb(path);
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  auto writer = TraceWriter::begin(*store, header(64));
  const std::size_t total = 10'000'000, batch = 1'000'000;
  for (std::size_t i = 0; i < total; i += batch)
    (void)writer->writeOps(makeOps(batch, i));
  (void)writer->finish(RunStatus::Complete);
  return path;
}

// The baseline: every op column read with bare sqlite3_step, nothing stored.
double rawScanSeconds(const std::string& path, std::int64_t& rows) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT rank, kind, stage, microbatch, step, start_ns, end_ns, peer_rank, "
                     "bytes, name FROM op",
                     -1, &stmt, nullptr);
  const auto t0 = Clock::now();
  std::int64_t sum = 0;
  rows = 0;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    sum += sqlite3_column_int64(stmt, 0);
    sum += sqlite3_column_bytes(stmt, 1);
    sum += sqlite3_column_int64(stmt, 2) + sqlite3_column_int64(stmt, 3) +
           sqlite3_column_int64(stmt, 4) + sqlite3_column_int64(stmt, 5) +
           sqlite3_column_int64(stmt, 6) + sqlite3_column_int64(stmt, 7) +
           sqlite3_column_int64(stmt, 8) + sqlite3_column_type(stmt, 9);
    ++rows;
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  benchmark::DoNotOptimize(sum);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return s;
}

// Opening a 10M-op run three ways, each against a bare sqlite3_step scan measured in the same
// iteration: from its rows (read-only, no cache), the first writable open (rows, then it leaves
// the columnar cache), and every later open (the cache; issue 16: >= 5x the raw scan).
void BM_Load10MOps(benchmark::State& state) {
  static const std::string path = build10M();
  double rowSeconds = 0, cachedSeconds = 0, rawSeconds = 0, firstOpenSeconds = 0;
  std::int64_t rows = 0;
  std::size_t fromRows = 0, fromCache = 0;
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  if (!store.ok()) {
    state.SkipWithError(store.error().c_str());
    return;
  }
  const std::int64_t id = store->latestRun()->id;
  {  // the freshly written run's first open: its rows, then the cache is written
    const auto t0 = Clock::now();
    auto first = loadRun(*store, id);
    firstOpenSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!first.ok()) {
      state.SkipWithError(first.error().c_str());
      return;
    }
  }
  for (auto _ : state) {
    std::int64_t r = 0;
    rawSeconds += rawScanSeconds(path, r);
    rows += r;
    auto t0 = Clock::now();
    LoadOptions rowsOnly;
    rowsOnly.readCache = false;
    auto run = loadRunFromFile(path, std::nullopt, rowsOnly);
    rowSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (!run.ok()) {
      state.SkipWithError(run.error().c_str());
      break;
    }
    fromRows += run->opCount();
    t0 = Clock::now();
    auto cached = loadRun(*store, id);
    cachedSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (!cached.ok() || cached->opCount() != run->opCount()) {
      state.SkipWithError("the cached open differs");
      break;
    }
    fromCache += cached->opCount();
  }
  const double rowRate = static_cast<double>(fromRows) / rowSeconds;
  const double cachedRate = static_cast<double>(fromCache) / cachedSeconds;
  const double rawRate = static_cast<double>(rows) / rawSeconds;
  const double n = static_cast<double>(state.iterations());
  state.counters["load_ops_per_s"] = rowRate;
  state.counters["raw_scan_ops_per_s"] = rawRate;
  state.counters["load_over_raw"] = rowRate / rawRate;
  state.counters["open_cached_s"] = cachedSeconds / n;
  state.counters["open_first_writable_s"] = firstOpenSeconds;
  state.counters["open_over_raw_scan"] = cachedRate / rawRate;
  std::printf(
      "10M ops: raw scan %.2f Mops/s (%.2f s); from rows %.2f Mops/s (%.3f x raw); first "
      "writable open (rows + cache) %.2f s; cached open %.2f s = %.2f Mops/s (%.2f x raw)\n",
      rawRate / 1e6, rawSeconds / n, rowRate / 1e6, rowRate / rawRate, firstOpenSeconds,
      cachedSeconds / n, cachedRate / 1e6, cachedRate / rawRate);
  removeDb(path);
}
BENCHMARK(BM_Load10MOps)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
