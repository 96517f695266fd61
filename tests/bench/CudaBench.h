#pragma once
// What the cuda benchmark programs share (bench_cuda_run: CudaRunBench.cpp and
// CudaTransferBench.cpp): the summary rows printed at the end ("goal | ..." / "info | ...", read
// by scripts/gpu-check) and a few timing helpers.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace ps::bench {

using Clock = std::chrono::steady_clock;

// --- the summary lines ---------------------------------------------------------------------------

struct Row {
  bool goal = false;  // a goal with PASS/FAIL, else a figure for reference
  std::string check, figure, target;
  bool pass = true;
};
inline std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}

inline std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

inline int deviceCount() {
  int count = 0;  // preset: some drivers leave it untouched on error
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return std::max(0, count);
}

inline void syncAllDevices() {
  for (int d = 0; d < deviceCount(); ++d) {
    cudaSetDevice(d);
    cudaDeviceSynchronize();
  }
  cudaGetLastError();
}

// Registers the transfer benchmarks (device-to-device through CudaTransport against a bare
// cudaMemcpyAsync; NCCL between two GPUs when there are two), for `gpus` visible devices.
void registerTransferBenchmarks(int gpus);

}  // namespace ps::bench
