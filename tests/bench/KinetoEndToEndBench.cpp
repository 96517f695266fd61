// Kineto import end to end at cluster scale (issue 31 §5): FILES generated rank files of MB each
// (default 8 x 150 MB; PIPESCOPE_BENCH_E2E_FILES, PIPESCOPE_BENCH_E2E_MB, in
// PIPESCOPE_BENCH_E2E_DIR, default /tmp/pipescope-bench-e2e) go file -> committed run through the
// real pipeline: readTraceFiles (a thread per file up to the cores), assembleImport,
// writeImportedRun into a fresh TraceStore. The baseline in the same process is the same
// pipeline reading one file after another (threads = 1: readTraceFiles before it read in
// parallel). Counters: import_end_to_end_MBps (input MB over the fastest iteration's wall time;
// goal >= 150 on 2 cores), import_peak_rss_over_input (peak resident growth over the input
// bytes; goal <= 0.25) and the time of each stage.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/bench/BenchMemory.h"
#include "tests/bench/KinetoTraceGenerator.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/import/MappingRules.h"
#include "trace/store/TraceStore.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace imp = ps::trace::import;

long envNumber(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atol(v) > 0 ? std::atol(v) : fallback;
}

std::string benchDir() {
  const char* v = std::getenv("PIPESCOPE_BENCH_E2E_DIR");
  return v != nullptr && *v != '\0' ? v : "/tmp/pipescope-bench-e2e";
}

struct RankFiles {
  std::vector<std::string> paths;
  std::size_t bytes = 0;
};

// One file per rank, generated once (kept while it has the asked size).
RankFiles ensureRankFiles() {
  const long files = envNumber("PIPESCOPE_BENCH_E2E_FILES", 8);
  const std::size_t target = static_cast<std::size_t>(envNumber("PIPESCOPE_BENCH_E2E_MB", 150))
                             << 20;
  std::filesystem::create_directories(benchDir());
  RankFiles out;
  for (int r = 0; r < files; ++r) {
    const std::string path = benchDir() + "/rank" + std::to_string(r) + ".pt.trace.json";
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec || size < target || size > target + (4u << 20)) {
      std::fprintf(stderr, "generating %s ...\n", path.c_str());
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr) std::abort();
      ps::bench::TraceShape shape;
      shape.bytes = target;
      shape.rank = r;
      shape.worldSize = static_cast<int>(files);
      shape.optimizerStep = true;
      ps::bench::TraceGenerator(f, shape).run();
      std::fclose(f);
      size = std::filesystem::file_size(path);
    }
    out.paths.push_back(path);
    out.bytes += size;
  }
  return out;
}

struct EndToEnd {
  double seconds = 1e300;  // fastest iteration
  double readS = 0, assembleS = 0, writeS = 0;
  double cpuS = 0;       // the process's CPU time in that iteration (all threads)
  double peakRatio = 0;  // largest over the iterations
  std::size_t ops = 0;
};
EndToEnd gOneThread, gParallel, gUnmapped;

// The import of a user who has not mapped the labels yet: the pipeline ranges are OTHER ops, so
// each of the ~65k kernels a file holds is an OTHER op of its own (~0.5M ops to write).
imp::OpRecognizer unmappedRecognizer() {
  auto rules =
      imp::MappingRules::parse(R"({"rules": [{"pattern": "^PP:", "kind": "OTHER"}]})", "bench");
  if (!rules) std::abort();
  return imp::OpRecognizer(std::move(*rules));
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of the whole process (every thread), user + system, in seconds.
double processCpuS() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

// File -> committed run; false (and the state skipped) on an error.
bool importOnce(benchmark::State& state, const RankFiles& files, unsigned threads, EndToEnd& into,
                bool unmapped) {
  const std::string db = benchDir() + "/import.sqlite";
  std::filesystem::remove(db);
  const ps::bench::PeakMemory memory;
  const double cpu0 = processCpuS();
  const auto t0 = Clock::now();
  auto raws = imp::readTraceFiles("kineto", files.paths, {}, threads);
  if (!raws) {
    state.SkipWithError(raws.error().c_str());
    return false;
  }
  const double read = since(t0);
  imp::ImportOptions options;
  options.format = "kineto";
  if (unmapped) options.recognizer = unmappedRecognizer();
  auto run = imp::assembleImport(std::move(*raws), options);
  if (!run) {
    state.SkipWithError(run.error().c_str());
    return false;
  }
  const double assembled = since(t0);
  {
    auto store = ps::trace::TraceStore::open(db, ps::trace::TraceStore::Mode::ReadWrite);
    auto id = store ? imp::writeImportedRun(*store, *run)
                    : ps::Result<std::int64_t>(ps::Error{store.error()});
    if (!id) {
      state.SkipWithError(id.error().c_str());
      return false;
    }
  }
  const double total = since(t0);
  into.ops = run->ops.size();
  if (total < into.seconds) {
    into.seconds = total;
    into.readS = read;
    into.assembleS = assembled - read;
    into.writeS = total - assembled;
    into.cpuS = processCpuS() - cpu0;
  }
  into.peakRatio = std::max(
      into.peakRatio, static_cast<double>(memory.peakGrowth()) / static_cast<double>(files.bytes));
  std::filesystem::remove(db);
  return true;
}

void runEndToEnd(benchmark::State& state, unsigned threads, EndToEnd& into, bool unmapped = false) {
  const RankFiles files = ensureRankFiles();
  into = EndToEnd{};
  for (auto _ : state)
    if (!importOnce(state, files, threads, into, unmapped)) return;
  const double mb = static_cast<double>(files.bytes) / 1e6;
  state.counters["files"] = static_cast<double>(files.paths.size());
  state.counters["threads"] = imp::readThreads(threads, files.paths.size());
  state.counters["import_end_to_end_MBps"] = mb / into.seconds;
  state.counters["import_peak_rss_over_input"] = into.peakRatio;
  state.counters["read_s"] = into.readS;
  state.counters["assemble_s"] = into.assembleS;
  state.counters["write_s"] = into.writeS;
  state.counters["ops"] = static_cast<double>(into.ops);
  state.counters["cpu_s"] = into.cpuS;
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 1) load[0] = -1;
  std::printf(
      "import end to end%s, %zu files, %.0f MB, %u thread(s): %.0f MB/s (fastest %.2f s: read "
      "%.2f, assemble %.2f, write %.2f; process CPU %.2f s), peak resident %.3fx input, %zu ops; "
      "load average %.2f on %u cores\n",
      unmapped ? " (labels unmapped: every kernel an op)" : "", files.paths.size(), mb,
      imp::readThreads(threads, files.paths.size()), mb / into.seconds, into.seconds, into.readS,
      into.assembleS, into.writeS, into.cpuS, into.peakRatio, into.ops, load[0],
      std::thread::hardware_concurrency());
  if (&into == &gParallel && gOneThread.ops > 0)
    std::printf("  = %.2fx the one-thread read's %.0f MB/s (peak %.3fx input)\n",
                gOneThread.seconds / gParallel.seconds, mb / gOneThread.seconds,
                gOneThread.peakRatio);
}

// The baseline first: the same pipeline, one file after another.
void BM_ImportEndToEndOneThread(benchmark::State& state) {
  runEndToEnd(state, 1, gOneThread);
}
void BM_ImportEndToEnd(benchmark::State& state) {
  runEndToEnd(state, 0, gParallel);
}

// Not the goal's case: the write-heavy import of the same files before the labels are mapped.
void BM_ImportEndToEndUnmapped(benchmark::State& state) {
  runEndToEnd(state, 0, gUnmapped, true);
}

BENCHMARK(BM_ImportEndToEndOneThread)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_ImportEndToEnd)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_ImportEndToEndUnmapped)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

}  // namespace
