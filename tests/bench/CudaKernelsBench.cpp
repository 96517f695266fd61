// The CUDA ComputeDevice against its own baseline, in one process on one stream: a transformer-
// stage-shaped linearForward (GEMM + bias, fp32, no TF32) through CudaDevice vs a bare
// cublasSgemm of the same shape on the same stream. The ratio bare/device is the share of
// cuBLAS throughput the device keeps (goal >= 0.9); bf16 is printed beside it for reference.
// Without a CUDA device the program says "no CUDA device" and exits 0.
// Build with the default (Release) preset and run build/default/tests/bench/bench_cuda_kernels.

#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaLibraries.h"

namespace {

using ps::kernels::CudaDevice;
using ps::kernels::DType;

// Rows = micro-batch 4 × sequence 1024 tokens; H = 1024, the MLP's up and down projections.
struct Shape {
  int rows, in, out;
};
constexpr Shape kShapes[] = {{4096, 1024, 4096}, {4096, 4096, 1024}};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds per call of `body`, timed with events on `stream`: the median of several rounds.
double timeMs(cudaStream_t stream, const std::function<void()>& body) {
  constexpr int kRounds = 7, kCalls = 20;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i)
    body();  // warm-up: cuBLAS heuristics, caches, clocks
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) {
    cudaEventRecord(start, stream);
    for (int i = 0; i < kCalls; ++i)
      body();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    rounds.push_back(ms / kCalls);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(rounds);
}

void BM_LinearForwardVsSgemm(benchmark::State& state) {
  const Shape s = kShapes[state.range(0)];
  const DType dtype = state.range(1) ? DType::Bf16 : DType::Fp32;
  std::unique_ptr<CudaDevice> opened;
  try {
    opened = std::make_unique<CudaDevice>(0, dtype);
  } catch (const ps::kernels::DeviceError& e) {
    state.SkipWithError(e.what());
    return;
  }
  CudaDevice& device = *opened;
  const std::size_t xBytes = sizeof(float) * s.rows * s.in, wBytes = sizeof(float) * s.out * s.in;
  const std::size_t yBytes = sizeof(float) * s.rows * s.out;
  auto* X = static_cast<float*>(device.allocate(xBytes));
  auto* W = static_cast<float*>(device.allocate(wBytes));
  auto* b = static_cast<float*>(device.allocate(sizeof(float) * s.out));
  auto* Y = static_cast<float*>(device.allocate(yBytes));
  device.fill(X, 0.5f, static_cast<long>(s.rows) * s.in);
  device.fill(W, 0.25f, static_cast<long>(s.out) * s.in);

  cublasHandle_t bare = nullptr;  // the baseline: cuBLAS as anyone would call it
  const auto& blas = ps::kernels::cuda::cublas();
  blas.create(&bare);
  blas.setStream(bare, device.stream());
  blas.setMathMode(bare, CUBLAS_DEFAULT_MATH);
  const float one = 1.0f, zero = 0.0f;
  double deviceMs = 0, bareMs = 0;
  for (auto _ : state) {
    deviceMs =
        timeMs(device.stream(), [&] { device.linearForward(X, W, b, Y, s.rows, s.in, s.out); });
    // Row-major Y = X·Wᵀ is column-major Yᵀ[out×rows] = W·Xᵀ, W read as a column-major [in×out].
    bareMs = timeMs(device.stream(), [&] {
      blas.sgemm(bare, CUBLAS_OP_T, CUBLAS_OP_N, s.out, s.rows, s.in, &one, W, s.in, X, s.in, &zero,
                 Y, s.out);
    });
  }
  blas.destroy(bare);
  device.release(X, xBytes);
  device.release(W, wBytes);
  device.release(b, sizeof(float) * s.out);
  device.release(Y, yBytes);

  const double flops = 2.0 * s.rows * s.in * s.out;
  const double ratio = bareMs / deviceMs;
  state.counters["device_tflops"] = flops / deviceMs / 1e9;
  state.counters["sgemm_tflops"] = flops / bareMs / 1e9;
  state.counters["ratio"] = ratio;
  std::printf(
      "linearForward %s %dx%d->%d on %s: device %.3f ms (%.1f TFLOP/s) vs bare fp32 cublasSgemm "
      "%.3f ms (%.1f TFLOP/s): ratio %.3f%s\n",
      std::string(ps::kernels::dtypeName(dtype)).c_str(), s.rows, s.in, s.out,
      device.name().c_str(), deviceMs, flops / deviceMs / 1e9, bareMs, flops / bareMs / 1e9, ratio,
      dtype == DType::Fp32 ? (ratio >= 0.9 ? " (goal >= 0.9 met)" : " (goal >= 0.9 MISSED)")
                           : " (bf16: for reference)");
}
BENCHMARK(BM_LinearForwardVsSgemm)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  int count = 0;  // preset: some drivers leave it untouched on error
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count <= 0) {
    cudaGetLastError();
    std::printf("no CUDA device (%s): nothing to measure\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "the driver reports 0 devices");
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
