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

#include "trace/import/kineto/KinetoReader.h"

namespace {

using ps::trace::import::readKinetoFile;

constexpr std::size_t kTargetBytes = 300u << 20;
const char* const kPath = "/tmp/pipescope-bench-kineto-v1.json";
const char* const kGzPath = "/tmp/pipescope-bench-kineto-v1.json.gz";

const char* const kKernels[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3>)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, "
    "false, true, false, false, false, true, false, false>(Flash_fwd_params)",
};
const char* const kOps[] = {"aten::mm",   "aten::add",   "aten::_softmax", "aten::empty",
                            "aten::view", "aten::copy_", "aten::linear",   "aten::t"};

// Writes the trace in Kineto's own layout (one key group per line, 2-space indents).
class TraceGenerator {
 public:
  explicit TraceGenerator(std::FILE* out) : out_(out) {}

  void run() {
    std::fputs(
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, "
        "\"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150754820096,\n      "
        "\"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132\n    }\n  ],\n  "
        "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n"
        "  \"traceEvents\": [\n",
        out_);
    long step = 0;
    while (written() < kTargetBytes) {
      const double stepStart = t_;
      for (int mb = 0; mb < 8 && written() < kTargetBytes; ++mb)
        microBatch(mb);
      event("user_annotation", "ProfilerStep#" + std::to_string(step++), 4242, 4242, stepStart,
            t_ - stepStart, "\"External id\": 1, \"Record function id\": 0, \"Ev Idx\": 0");
    }
    std::fputs(
        "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": "
        "\"\", \"tid\": \"\",\n    \"ts\": 1.000\n  }\n  ],\n  \"traceName\": "
        "\"bench.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n  "
        "\"baseTimeNanoseconds\": 1731400000000000000\n}\n",
        out_);
  }

 private:
  std::size_t written() const { return static_cast<std::size_t>(std::ftell(out_)); }

  void event(const char* cat, const std::string& name, long pid, long tid, double ts, double dur,
             const std::string& args) {
    std::fprintf(out_,
                 "  {\n    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %ld, "
                 "\"tid\": %ld,\n    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      %s\n    "
                 "}\n  },\n",
                 cat, name.c_str(), pid, tid, ts, dur, args.c_str());
  }

  void flow(const char* ph, long id, long pid, long tid, double ts) {
    std::fprintf(out_,
                 "  {\n    \"ph\": \"%s\", \"id\": %ld, \"pid\": %ld, \"tid\": %ld, \"ts\": %.3f,\n"
                 "    \"cat\": \"ac2g\", \"name\": \"ac2g\"%s\n  },\n",
                 ph, id, pid, tid, ts, ph[0] == 'f' ? ", \"bp\": \"e\"" : "");
  }

  void microBatch(int mb) {
    const std::string label = "PP:3F" + std::to_string(mb);
    const double start = t_;
    const double gpuStart = gpuT_;
    for (int layer = 0; layer < 24; ++layer)
      layerOps(layer);
    event("user_annotation", label, 4242, 4242, start, t_ - start,
          "\"External id\": " + std::to_string(++external_) +
              ", \"Record function id\": 0, \"Ev Idx\": 7");
    event("gpu_user_annotation", label, 0, 7, gpuStart, gpuT_ - gpuStart,
          "\"External id\": " + std::to_string(external_));
    // Send the activations to the next stage.
    kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 24, 150.0,
           ",\n      \"Collective name\": \"send\", \"In msg nelems\": 4194304, \"Out msg "
           "nelems\": 4194304, \"Group size\": 2, \"dtype\": \"BFloat16\", \"In split size\": "
           "\"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"12\", \"Process Group "
           "Description\": \"pp\", \"Process Group Ranks\": \"[3, 4]\", \"Dst Rank\": 4");
    std::fprintf(out_,
                 "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
                 "\"[memory]\",\n    \"pid\": 4242, \"tid\": 4242,\n    \"ts\": %.3f,\n    "
                 "\"args\": {\n      \"Total Reserved\": 42949672960, \"Total Allocated\": %ld, "
                 "\"Bytes\": 33554432, \"Addr\": 139868209594368, \"Device Type\": 1, \"Device "
                 "Id\": 0\n    }\n  },\n",
                 t_, 30000000000L + mb * 33554432L);
  }

  void layerOps(int layer) {
    for (int k = 0; k < 3; ++k) {
      const char* op = kOps[(layer + k) % 8];
      const double opStart = t_;
      ++external_;
      event("cpu_op", op, 4242, 4242, opStart, 14.25,
            "\"External id\": " + std::to_string(external_) +
                ", \"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\"], \"Input "
                "type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[4096, 1], "
                "[4096, 1]], \"Input Dims\": [[8192, 4096], [4096, 4096]], \"Ev Idx\": " +
                std::to_string(external_));
      ++external_;
      event("cpu_op", "aten::empty", 4242, 4242, opStart + 1.0, 2.5,
            "\"External id\": " + std::to_string(external_) +
                ", \"Record function id\": 0, \"Ev Idx\": " + std::to_string(external_));
      event("cuda_runtime", "cudaLaunchKernel", 4242, 4242, opStart + 6.0, 5.125,
            "\"External id\": " + std::to_string(external_) +
                ", \"cbid\": 211, \"correlation\": " + std::to_string(++correlation_));
      flow("s", correlation_, 4242, 4242, opStart + 6.0);
      kernel(kKernels[(layer * 3 + k) % 4], 7, 40.0 + k * 13.5, "");
      flow("f", correlation_, 0, 7, gpuT_ - 1.0);
      t_ += 16.5;
    }
  }

  void kernel(const char* name, long stream, double dur, const std::string& extra) {
    event("kernel", name, 0, stream, gpuT_, dur,
          "\"External id\": " + std::to_string(external_) +
              ",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": " +
              std::to_string(stream) + ", \"correlation\": " + std::to_string(correlation_) +
              ",\n      \"registers per thread\": 168,\n      \"shared memory\": 232448,\n      "
              "\"blocks per SM\": 1,\n      \"warps per SM\": 12,\n      \"grid\": [132, 1, "
              "1],\n      \"block\": [384, 1, 1],\n      \"est. achieved occupancy %\": 19" +
              extra);
    gpuT_ += dur + 1.25;
  }

  std::FILE* out_;
  double t_ = 4458676388068.751;
  double gpuT_ = 4458676388168.123;
  long external_ = 0;
  long correlation_ = 0;
};

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
    TraceGenerator(out).run();
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

// Resident set now and its peak since the last reset (Linux: writing 5 to clear_refs resets
// VmHWM), in bytes.
long statusField(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field))) * 1024;
  return -1;
}
bool resetPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return static_cast<bool>(out);
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
    const bool canReset = resetPeak();
    const long before = statusField("VmRSS:");
    body();
    const long peak = canReset ? statusField("VmHWM:") : -1;
    if (peak > 0 && before > 0)
      peakRatio = std::max(
          peakRatio, static_cast<double>(peak - before) / static_cast<double>(fileSize(kPath)));
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
