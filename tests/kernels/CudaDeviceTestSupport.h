#pragma once
// What the CudaDevice tests share: the device probe (tests skip with its reason without a GPU),
// host/device vectors, the per-dtype fixture and the closeness check. Only for builds with CUDA
// (PIPESCOPE_TEST_HAVE_CUDA).

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/cpu/CpuDevice.h"
#include "kernels/cuda/CudaDevice.h"
#include "tests/kernels/GradCheck.h"

namespace ps::kernels {

// Test names and ctest entries show "fp32"/"bf16" rather than the enum's bytes (found by ADL;
// static: no other test file can clash with it).
[[maybe_unused]] static void PrintTo(DType type, std::ostream* os) {
  *os << dtypeName(type);
}

namespace cudatest {

using test::randomVector;
using Vec = std::vector<float>;

// Never throws, never leaves a CUDA error behind: any error means no device (a machine without
// a driver answers cudaErrorInsufficientDriver; some drivers leave the count untouched).
inline int cudaDeviceCountOrZero(std::string* reason) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    *reason = cudaGetErrorString(rc);
    cudaGetLastError();
    return 0;
  }
  if (count <= 0) *reason = "the driver reports 0 devices";
  return std::max(count, 0);
}

struct CudaProbe {
  bool hasDevice = false;
  std::string reason;
};

inline const CudaProbe& probe() {
  static const CudaProbe p = [] {
    CudaProbe r;
    r.hasDevice = cudaDeviceCountOrZero(&r.reason) > 0;
    return r;
  }();
  return p;
}

// max |ref − got| / max |ref|: one number per output, independent of its scale.
inline double relativeError(const Vec& ref, const Vec& got) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(ref[i]) - got[i]));
    scale = std::max(scale, std::abs(static_cast<double>(ref[i])));
  }
  return diff / std::max(scale, 1e-30);
}

// A device copy of a host vector, released on scope exit.
class DeviceVec {
 public:
  DeviceVec(CudaDevice& device, const Vec& host) : device_(device), n_(host.size()) {
    ptr_ = static_cast<float*>(device.allocate(bytes()));
    device.upload(ptr_, host.data(), bytes());
  }
  ~DeviceVec() { device_.release(ptr_, bytes()); }
  DeviceVec(const DeviceVec&) = delete;
  DeviceVec& operator=(const DeviceVec&) = delete;
  float* get() const { return ptr_; }
  Vec host() const {
    Vec v(n_);
    device_.download(v.data(), ptr_, bytes());
    return v;
  }

 private:
  std::size_t bytes() const { return n_ * sizeof(float); }
  CudaDevice& device_;
  std::size_t n_;
  float* ptr_ = nullptr;
};

class CudaDeviceTest : public ::testing::TestWithParam<DType> {
 protected:
  void SetUp() override {
    if (!probe().hasDevice) GTEST_SKIP() << "no CUDA device (" << probe().reason << ")";
    gpu_ = std::make_unique<CudaDevice>(0, GetParam());
  }
  // fp32 is held to float rounding; bf16 only for what went through a GEMM.
  double gemmTolerance() const { return GetParam() == DType::Fp32 ? 1e-5 : 2e-2; }
  static constexpr double kTolerance = 1e-5;

  CpuDevice cpu_;
  std::unique_ptr<CudaDevice> gpu_;
};

// A non-blocking stream on the device's context, as the runtime's transfer threads have.
class OtherStream {
 public:
  explicit OtherStream(CudaDevice& device) {
    device.makeCurrent();
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  ~OtherStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  OtherStream(const OtherStream&) = delete;
  OtherStream& operator=(const OtherStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace cudatest

#define EXPECT_CLOSE(ref, dev, tol) EXPECT_LE(relativeError(ref, (dev).host()), tol) << #dev

}  // namespace ps::kernels
