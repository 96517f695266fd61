// nsys import throughput: an export with 1M kernels (one CUDA runtime launch row each, 2% of them
// NCCL) under 4000 NVTX ranges, read with readNsysFile, against a bare sqlite3_step scan of the
// kernel table's columns in the same process (goal: 1M kernels in a few seconds).
// The export is written once to the temp directory and kept for later runs (its name carries a
// version; delete it to rebuild).

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/trace/import/NsysFixture.h"
#include "trace/import/nsys/NsysReader.h"

namespace {

using namespace ps::trace::import;
using Clock = std::chrono::steady_clock;

constexpr int kKernels = 1'000'000;
constexpr int kKernelsPerRange = 250;

std::string buildExport() {
  const std::string path =
      (std::filesystem::temp_directory_path() / "pipescope-bench-nsys-1m-v1.sqlite").string();
  if (std::filesystem::exists(path)) return path;
  static const char* const kNames[] = {"void gemm_kernel<128, 64>(float const*, float*)",
                                       "layer_norm_fwd",
                                       "gelu_fwd",
                                       "softmax_fwd",
                                       "void gemm_kernel<64, 64>(float const*, float*)",
                                       "attention_fwd",
                                       "layer_norm_bwd",
                                       "gelu_bwd"};
  testing::FixtureRank rank;
  rank.events.reserve(kKernels + kKernels / kKernelsPerRange);
  for (int i = 0; i < kKernels; ++i) {
    if (i % kKernelsPerRange == 0) {
      const int op = i / kKernelsPerRange;
      rank.events.push_back({testing::FixtureEventKind::Annotation,
                             "PP:" + std::to_string(op % 4) + "F" + std::to_string(op),
                             std::int64_t{i} * 1000,
                             std::int64_t{i + kKernelsPerRange} * 1000 - 100, -1, -1, op / 64});
    }
    const bool nccl = i % 50 == 49;
    rank.events.push_back(
        {nccl ? testing::FixtureEventKind::Nccl : testing::FixtureEventKind::Kernel,
         nccl ? "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)" : kNames[i % 8],
         std::int64_t{i} * 1000, std::int64_t{i} * 1000 + 800});
  }
  testing::NsysFixtureOptions options;
  options.hostLeadNs = 200'000;
  const std::string tmp = path + ".partial";
  const auto status = testing::writeNsysFixture(tmp, {rank}, options);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.error().c_str());
    return {};
  }
  std::filesystem::rename(tmp, path);
  return path;
}

// The baseline: the kernel columns the reader reads, with bare sqlite3_step, nothing stored.
double rawScanSeconds(const std::string& path, std::int64_t& rows) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT start, \"end\", deviceId, streamId, correlationId, globalPid, "
                     "demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL",
                     -1, &stmt, nullptr);
  const auto t0 = Clock::now();
  std::int64_t sum = 0;
  rows = 0;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    for (int c = 0; c < 7; ++c)
      sum += sqlite3_column_int64(stmt, c);
    ++rows;
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  benchmark::DoNotOptimize(sum);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return s;
}

void BM_ReadNsys1MKernels(benchmark::State& state) {
  static const std::string path = buildExport();
  if (path.empty()) {
    state.SkipWithError("could not write the export");
    return;
  }
  double readSeconds = 0, rawSeconds = 0;
  std::int64_t rawRows = 0, kernels = 0;
  for (auto _ : state) {
    std::int64_t r = 0;
    rawSeconds += rawScanSeconds(path, r);
    rawRows += r;
    const auto t0 = Clock::now();
    auto traces = readNsysFile(path);
    readSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (!traces.ok() || traces->size() != 1) {
      state.SkipWithError(traces.ok() ? "expected one trace" : traces.error().c_str());
      return;
    }
    for (const auto& e : traces->front().events)
      kernels += e.source == EventSource::Kernel || e.source == EventSource::NcclKernel;
  }
  const double n = static_cast<double>(state.iterations());
  const double readRate = static_cast<double>(kernels) / readSeconds;
  const double rawRate = static_cast<double>(rawRows) / rawSeconds;
  state.counters["kernels_per_s"] = readRate;
  state.counters["raw_scan_rows_per_s"] = rawRate;
  state.counters["read_over_raw_time"] = readSeconds / rawSeconds;
  std::printf(
      "readNsysFile: %.3f s per file (1M kernels + 1M runtime rows + 4000 NVTX ranges, "
      "projected), %.2f M kernels/s\n"
      "bare sqlite3_step scan of the kernel table: %.3f s, %.2f M rows/s\n"
      "read time / raw kernel scan time = %.2f\n",
      readSeconds / n, readRate / 1e6, rawSeconds / n, rawRate / 1e6, readSeconds / rawSeconds);
}
BENCHMARK(BM_ReadNsys1MKernels)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
