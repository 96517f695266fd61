// Kineto JSON import throughput and memory: a ~300 MB realistic torch.profiler trace (mostly
// cpu_op, cuda_runtime and kernel events, with pipeline annotations, NCCL kernels, flows and
// [memory] events) is generated once into /tmp, then read with readKinetoFile. The baseline in
// the same process is simdjson On Demand iterating every event of the same file as one document
// (the parse the reader is built on, without its work or its windowing). Goals: >= 200 MB/s and
// peak memory ~1x the file size.

#include <benchmark/benchmark.h>
#include <simdjson.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/bench/BenchMemory.h"
#include "tests/bench/KinetoTraceGenerator.h"
#include "trace/import/kineto/KinetoReader.h"

namespace {

using ps::trace::import::readKinetoFile;

constexpr std::size_t kTargetBytes = 300u << 20;
const char* const kPath = "/tmp/pipescope-bench-kineto-v1.json";
const char* const kGzPath = "/tmp/pipescope-bench-kineto-v1.json.gz";

std::size_t fileSize(const char* path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::size_t>(size);
}

void ensureTrace() {
  if (fileSize(kPath) < kTargetBytes) {
    std::fprintf(stderr, "generating %s ...\n", kPath);
    std::FILE* out = std::fopen(kPath, "wb");
    if (out == nullptr) std::abort();
    ps::bench::TraceGenerator(out, ps::bench::TraceShape{}).run();
    std::fclose(out);
  }
  if (fileSize(kGzPath) == 0) {
    std::fprintf(stderr, "compressing %s ...\n", kGzPath);
    std::FILE* in = std::fopen(kPath, "rb");
    gzFile out = gzopen(kGzPath, "wb1");
    std::string chunk(1 << 20, '\0');
    for (std::size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), in)) > 0;)
      gzwrite(out, chunk.data(), static_cast<unsigned>(n));
    gzclose(out);
    std::fclose(in);
  }
}

struct Measured {
  double mbPerS = 0;
  double peakRatio = 0;
};
Measured gImport, gImportGz, gBaseline;

template <typename Body>
void measure(benchmark::State& state, std::size_t rateBytes, Measured& into, Body body) {
  double peakRatio = 0;
  for (auto _ : state) {
    const ps::bench::PeakMemory memory;
    body();
    if (const long growth = memory.peakGrowth(); growth >= 0)
      peakRatio =
          std::max(peakRatio, static_cast<double>(growth) / static_cast<double>(fileSize(kPath)));
  }
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(rateBytes) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_mem/file"] = peakRatio;
  state.SetBytesProcessed(static_cast<std::int64_t>(rateBytes) *
                          static_cast<std::int64_t>(state.iterations()));
  into.peakRatio = peakRatio;
}

void BM_ReadKinetoFile(benchmark::State& state) {
  ensureTrace();
  std::size_t events = 0;
  const auto t0 = std::chrono::steady_clock::now();
  measure(state, fileSize(kPath), gImport, [&] {
    auto trace = readKinetoFile(kPath);
    if (!trace.ok()) state.SkipWithError(trace.error().c_str());
    // (No DoNotOptimize on the size_t: GCC 12 drops the store after its "+m,r" asm.)
    events = trace.ok() ? trace->events.size() : 0;
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gImport.mbPerS =
      static_cast<double>(fileSize(kPath)) * static_cast<double>(state.iterations()) / 1e6 / s;
  state.counters["kept_events"] = static_cast<double>(events);
}

void BM_ReadKinetoFileGz(benchmark::State& state) {
  ensureTrace();
  const auto t0 = std::chrono::steady_clock::now();
  // Rate in uncompressed MB, so it compares with the plain file.
  measure(state, fileSize(kPath), gImportGz, [&] {
    auto trace = readKinetoFile(kGzPath);
    if (!trace.ok()) state.SkipWithError(trace.error().c_str());
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gImportGz.mbPerS =
      static_cast<double>(fileSize(kPath)) * static_cast<double>(state.iterations()) / 1e6 / s;
}

// The baseline: load the file and let simdjson On Demand visit every event's keys.
void BM_SimdjsonIterate(benchmark::State& state) {
  ensureTrace();
  const auto t0 = std::chrono::steady_clock::now();
  measure(state, fileSize(kPath), gBaseline, [&] {
    simdjson::padded_string json;
    if (simdjson::padded_string::load(kPath).get(json)) state.SkipWithError("cannot load");
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    std::size_t keys = 0;
    if (parser.iterate(json).get(doc)) state.SkipWithError("iterate failed");
    simdjson::ondemand::array events;
    if (doc["traceEvents"].get_array().get(events)) state.SkipWithError("no traceEvents");
    for (auto event : events) {
      simdjson::ondemand::object object;
      if (event.get_object().get(object)) continue;
      for (auto field : object) {
        simdjson::ondemand::field f;
        if (std::move(field).get(f)) break;
        keys += f.key().raw()[0] == 'p';
      }
    }
    benchmark::DoNotOptimize(keys);
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gBaseline.mbPerS =
      static_cast<double>(fileSize(kPath)) * static_cast<double>(state.iterations()) / 1e6 / s;
}

BENCHMARK(BM_ReadKinetoFile)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_ReadKinetoFileGz)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_SimdjsonIterate)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (gImport.mbPerS > 0 && gBaseline.mbPerS > 0) {
    std::printf(
        "\nkineto import (%.0f MB file): %.0f MB/s = %.2fx simdjson On Demand iterate (%.0f "
        "MB/s); .json.gz %.0f MB/s; peak memory %.2fx file (baseline %.2fx)\n",
        static_cast<double>(fileSize(kPath)) / 1e6, gImport.mbPerS,
        gImport.mbPerS / gBaseline.mbPerS, gBaseline.mbPerS, gImportGz.mbPerS, gImport.peakRatio,
        gBaseline.peakRatio);
  }
  return 0;
}
