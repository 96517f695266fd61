// CudaDevice against CpuDevice: every ComputeDevice method runs on both with the same random
// inputs (shapes that are not multiples of 32 among them) and the results must agree: fp32 within
// 1e-5 and bf16 GEMM-based ops within 2e-2, relative to the largest reference value. Plus the
// caching allocator (zeroed blocks, reuse, blocks for other streams ordered after their previous
// users, a named out-of-memory error), pinned upload staging, readBack, green contexts and
// determinism. Without a CUDA device (or without a driver) every CUDA test skips and says why;
// CpuDevice's readBack is tested everywhere.

#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/CpuDevice.h"

namespace ps::kernels {
namespace {

TEST(CpuDeviceReadBack, CopiesTheBytes) {
  ComputeDevice& cpu = hostDevice();
  const std::vector<float> src{1.5f, -2.0f, 3.25f, 1e-30f};
  const std::size_t bytes = src.size() * sizeof(float);
  auto* p = static_cast<float*>(cpu.allocate(bytes));
  cpu.upload(p, src.data(), bytes);
  std::vector<float> out(src.size(), 0.0f);
  cpu.readBack(out.data(), p, bytes);
  EXPECT_EQ(out, src);
  cpu.readBack(nullptr, p, 0);  // nothing to copy: touches nothing
  cpu.release(p, bytes);
}

}  // namespace
}  // namespace ps::kernels

#ifdef PIPESCOPE_TEST_HAVE_CUDA

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/cpu/CpuDevice.h"
#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaDriverApi.h"
#include "tests/kernels/GradCheck.h"

namespace ps::kernels {

// Test names and ctest entries show "fp32"/"bf16" rather than the enum's bytes (found by ADL;
// static: no other test file can clash with it).
[[maybe_unused]] static void PrintTo(DType type, std::ostream* os) {
  *os << dtypeName(type);
}

namespace {

using test::randomVector;
using Vec = std::vector<float>;

// Never throws, never leaves a CUDA error behind: any error means no device (a machine without
// a driver answers cudaErrorInsufficientDriver; some drivers leave the count untouched).
int cudaDeviceCountOrZero(std::string* reason) {
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

const CudaProbe& probe() {
  static const CudaProbe p = [] {
    CudaProbe r;
    r.hasDevice = cudaDeviceCountOrZero(&r.reason) > 0;
    return r;
  }();
  return p;
}

// max |ref − got| / max |ref|: one number per output, independent of its scale.
double relativeError(const Vec& ref, const Vec& got) {
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

// The one test that also runs without a GPU: opening a device that is not there is a
// DeviceError that says so (the runtime's "no CUDA device" path), never a crash.
TEST(CudaDeviceOpen, MissingDeviceThrowsDeviceError) {
  const int index = probe().hasDevice ? 1 << 20 : 0;
  try {
    CudaDevice device(index, DType::Fp32);
    FAIL() << "opened CUDA device " << index;
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

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

#define EXPECT_CLOSE(ref, dev, tol) EXPECT_LE(relativeError(ref, (dev).host()), tol) << #dev

TEST_P(CudaDeviceTest, AllocateReturnsZeroedMemoryAndReusesReleasedBlocks) {
  CudaDevice& d = *gpu_;
  EXPECT_FALSE(d.isHost());
  EXPECT_FALSE(d.name().empty());
  EXPECT_EQ(d.dtype(), GetParam());
  const long n = 1000;
  auto* p = static_cast<float*>(d.allocate(n * sizeof(float)));
  d.fill(p, 3.0f, n);
  const std::size_t reserved = d.reservedBytes();
  d.release(p, n * sizeof(float));
  auto* q = static_cast<float*>(d.allocate(n * sizeof(float)));
  EXPECT_EQ(q, p) << "a released block of the same size is handed out again";
  EXPECT_EQ(d.reservedBytes(), reserved);
  Vec host(n, -1.0f);
  d.download(host.data(), q, n * sizeof(float));
  EXPECT_EQ(std::count(host.begin(), host.end(), 0.0f), n) << "a reused block is zeroed too";
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q) % 256, 0u);
  d.release(q, n * sizeof(float));
}

TEST_P(CudaDeviceTest, AllocateForReturnsABlockUsableOnAnotherStream) {
  CudaDevice& d = *gpu_;
  OtherStream other(d);
  const Vec a = randomVector(5000, 11);
  const std::size_t bytes = a.size() * sizeof(float);
  for (int round = 0; round < 2; ++round) {  // a fresh block, then the same one reused
    SCOPED_TRACE(round);
    void* p = d.allocateFor(bytes, other.get());
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
    ASSERT_EQ(cudaMemcpyAsync(p, a.data(), bytes, cudaMemcpyHostToDevice, other.get()),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(other.get()), cudaSuccess);
    Vec out(a.size(), -1.0f);
    d.readBack(out.data(), p, bytes);
    EXPECT_EQ(out, a);
    d.release(p, bytes);
  }
  EXPECT_EQ(d.allocateFor(0, other.get()), nullptr);
}

TEST_P(CudaDeviceTest, AllocateForOrdersTheNewUserAfterTheReleasedBlocksLastUser) {
  CudaDevice& d = *gpu_;
  const long n = 8L << 20;  // 32 MiB
  const std::size_t bytes = n * sizeof(float);
  auto* a = static_cast<float*>(d.allocate(bytes));
  // Milliseconds of writes into A queued on the device's stream, then A released at once.
  for (int i = 0; i < 1000; ++i)
    d.fill(a, static_cast<float>(i), n);
  d.release(a, bytes);
  OtherStream other(d);
  void* b = d.allocateFor(bytes, other.get());
  EXPECT_EQ(b, a) << "the released block is handed out again";
  Vec pattern(n);
  for (long i = 0; i < n; ++i)
    pattern[i] = static_cast<float>(i % 1000) + 0.5f;
  // Written on the other stream: only after the fills if it waited on A's release.
  ASSERT_EQ(cudaMemcpyAsync(b, pattern.data(), bytes, cudaMemcpyHostToDevice, other.get()),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(other.get()), cudaSuccess);
  d.synchronize();
  Vec out(n);
  d.download(out.data(), b, bytes);
  EXPECT_EQ(out, pattern) << "a fill of the previous user ran after the new user's copy";
  d.release(b, bytes);
}

TEST_P(CudaDeviceTest, UploadKeepsTheBytesWhenTheHostBufferIsReusedAtOnce) {
  CudaDevice& d = *gpu_;
  // More uploads than staging slots, one larger than a slot (it goes in pieces), tiny ones.
  const std::vector<long> sizes{1, 1000, 300001, 5000001, 7, 64, 123457, 1};
  std::vector<Vec> expected;
  std::vector<float*> buffers;
  Vec host(*std::max_element(sizes.begin(), sizes.end()));
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const long n = sizes[k];
    expected.push_back(randomVector(n, static_cast<unsigned>(20 + k)));
    std::copy(expected.back().begin(), expected.back().end(), host.begin());
    buffers.push_back(static_cast<float*>(d.allocate(n * sizeof(float))));
    d.upload(buffers.back(), host.data(), n * sizeof(float));
    std::fill(host.begin(), host.begin() + n, -7.0f);  // the caller reuses its buffer at once
  }
  // Pinned host memory: upload waits for its copy, so the buffer may be reused too.
  const long n = 4096;
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, n * sizeof(float)), cudaSuccess);
  expected.push_back(randomVector(n, 99));
  std::copy(expected.back().begin(), expected.back().end(), pinned);
  buffers.push_back(static_cast<float*>(d.allocate(n * sizeof(float))));
  d.upload(buffers.back(), pinned, n * sizeof(float));
  std::fill(pinned, pinned + n, -7.0f);
  for (std::size_t k = 0; k < buffers.size(); ++k) {
    SCOPED_TRACE(k);
    Vec out(expected[k].size());
    d.download(out.data(), buffers[k], out.size() * sizeof(float));
    EXPECT_EQ(out, expected[k]);
    d.release(buffers[k], out.size() * sizeof(float));
  }
  cudaFreeHost(pinned);
}

TEST_P(CudaDeviceTest, ReadBackReturnsFinishedBytes) {
  CudaDevice& d = *gpu_;
  const long n = 100000;
  auto* p = static_cast<float*>(d.allocate(n * sizeof(float)));
  d.fill(p, 2.5f, n);
  d.synchronize();
  Vec out(n, 0.0f);
  d.readBack(out.data(), p, n * sizeof(float));
  EXPECT_EQ(out, Vec(n, 2.5f));
  // Writers known finished through an event (as the runtime knows them), not a synchronize.
  d.fill(p, -1.25f, n);
  d.makeCurrent();
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(done, d.stream()), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(done), cudaSuccess);
  cudaEventDestroy(done);
  d.readBack(out.data(), p, n * sizeof(float));
  EXPECT_EQ(out, Vec(n, -1.25f));
  d.release(p, n * sizeof(float));
}

TEST_P(CudaDeviceTest, MakeCurrentRestoresTheDevicesContext) {
  CudaDevice& d = *gpu_;
  EXPECT_EQ(d.smCount(), 0u) << "a stream of our own: the whole device";
  const auto& api = cuda::driverApi();
  ASSERT_TRUE(api.streamGetCtx && api.ctxGetCurrent && api.ctxSetCurrent);
  CUcontext expected = nullptr, current = nullptr;
  ASSERT_EQ(api.streamGetCtx(reinterpret_cast<CUstream>(d.stream()), &expected), CUDA_SUCCESS);
  ASSERT_EQ(api.ctxSetCurrent(nullptr), CUDA_SUCCESS);
  d.makeCurrent();
  ASSERT_EQ(api.ctxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, expected);
  int device = -1;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, d.deviceIndex());
}

TEST_P(CudaDeviceTest, ImpossibleAllocationThrowsNamingTheSize) {
  try {
    void* p = gpu_->allocate(std::size_t{1} << 50);  // 1 PiB
    gpu_->release(p, std::size_t{1} << 50);
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("cudaMalloc of 1.0 PiB"), std::string::npos) << e.what();
  }
  // The device stays usable after the failure.
  DeviceVec v(*gpu_, Vec{1, 2, 3});
  EXPECT_EQ(v.host(), (Vec{1, 2, 3}));
}

TEST_P(CudaDeviceTest, CopiesRoundTrip) {
  const Vec a = randomVector(777, 1);
  DeviceVec src(*gpu_, a);
  DeviceVec dst(*gpu_, Vec(a.size()));
  gpu_->copy(dst.get(), src.get(), a.size() * sizeof(float));
  EXPECT_EQ(dst.host(), a);
}

TEST_P(CudaDeviceTest, ElementwiseMatchesCpu) {
  for (long n : {1L, 1000L, 1234567L}) {
    SCOPED_TRACE(n);
    const Vec a = randomVector(n, 2), b = randomVector(n, 3, 2.0f);
    Vec out(n), y = b, g(n), dx = a;
    DeviceVec da(*gpu_, a), db(*gpu_, b), dout(*gpu_, Vec(n)), dy(*gpu_, b), dg(*gpu_, Vec(n)),
        ddx(*gpu_, a), dfill(*gpu_, Vec(n));
    cpu_.residualAdd(a.data(), b.data(), out.data(), n);
    gpu_->residualAdd(da.get(), db.get(), dout.get(), n);
    EXPECT_CLOSE(out, dout, kTolerance);
    cpu_.axpy(-0.7f, a.data(), y.data(), n);
    gpu_->axpy(-0.7f, da.get(), dy.get(), n);
    EXPECT_CLOSE(y, dy, kTolerance);
    cpu_.geluForward(b.data(), g.data(), n);
    gpu_->geluForward(db.get(), dg.get(), n);
    EXPECT_CLOSE(g, dg, kTolerance);
    for (bool acc : {false, true}) {
      cpu_.geluBackward(b.data(), a.data(), dx.data(), n, acc);
      gpu_->geluBackward(db.get(), da.get(), ddx.get(), n, acc);
      EXPECT_CLOSE(dx, ddx, kTolerance) << " accumulate " << acc;
    }
    gpu_->fill(dfill.get(), 0.25f, n);
    EXPECT_CLOSE(Vec(n, 0.25f), dfill, 0.0);
  }
}

struct LinearShape {
  int rows, in, out;
};

TEST_P(CudaDeviceTest, LinearMatchesCpu) {
  for (const LinearShape s : {LinearShape{24, 20, 20}, {3, 4, 5}, {130, 70, 33}, {300, 64, 96}}) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.in << "->" << s.out);
    const Vec x = randomVector(s.rows * s.in, 1), w = randomVector(s.out * s.in, 2, 0.5f);
    const Vec b = randomVector(s.out, 3), dy = randomVector(s.rows * s.out, 4);
    Vec y(s.rows * s.out), dx = randomVector(s.rows * s.in, 5);
    Vec dw = randomVector(s.out * s.in, 6), dbias = randomVector(s.out, 7);
    DeviceVec dX(*gpu_, x), dW(*gpu_, w), dB(*gpu_, b), dDy(*gpu_, dy), dY(*gpu_, y),
        dDx(*gpu_, dx), dDw(*gpu_, dw), dDb(*gpu_, dbias);
    cpu_.linearForward(x.data(), w.data(), b.data(), y.data(), s.rows, s.in, s.out);
    gpu_->linearForward(dX.get(), dW.get(), dB.get(), dY.get(), s.rows, s.in, s.out);
    EXPECT_CLOSE(y, dY, gemmTolerance());
    cpu_.linearForward(x.data(), w.data(), nullptr, y.data(), s.rows, s.in, s.out);
    gpu_->linearForward(dX.get(), dW.get(), nullptr, dY.get(), s.rows, s.in, s.out);
    EXPECT_CLOSE(y, dY, gemmTolerance());
    for (bool acc : {true, false}) {
      cpu_.linearBackwardInput(dy.data(), w.data(), dx.data(), s.rows, s.in, s.out, acc);
      gpu_->linearBackwardInput(dDy.get(), dW.get(), dDx.get(), s.rows, s.in, s.out, acc);
      EXPECT_CLOSE(dx, dDx, gemmTolerance()) << " accumulate " << acc;
    }
    // Twice: the weight gradients add; the second time without a bias.
    cpu_.linearBackwardWeight(dy.data(), x.data(), dw.data(), dbias.data(), s.rows, s.in, s.out);
    gpu_->linearBackwardWeight(dDy.get(), dX.get(), dDw.get(), dDb.get(), s.rows, s.in, s.out);
    cpu_.linearBackwardWeight(dy.data(), x.data(), dw.data(), nullptr, s.rows, s.in, s.out);
    gpu_->linearBackwardWeight(dDy.get(), dX.get(), dDw.get(), nullptr, s.rows, s.in, s.out);
    EXPECT_CLOSE(dw, dDw, gemmTolerance());
    EXPECT_CLOSE(dbias, dDb, kTolerance);  // no GEMM: exact precision either way
  }
}

TEST_P(CudaDeviceTest, LayerNormMatchesCpu) {
  for (const auto& [rows, cols] : {std::pair{24, 20}, {300, 97}, {5, 1024}, {1, 1}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    const long n = static_cast<long>(rows) * cols;
    Vec x = randomVector(n, 1);
    for (float& v : x)
      v += 3.0f;  // a mean far from zero, as activations have
    const Vec gamma = randomVector(cols, 2), beta = randomVector(cols, 3);
    const Vec dy = randomVector(n, 4);
    Vec y(n), mean(rows), rstd(rows), dx = randomVector(n, 5);
    Vec dgamma = randomVector(cols, 6), dbeta = randomVector(cols, 7);
    DeviceVec gX(*gpu_, x), gGamma(*gpu_, gamma), gBeta(*gpu_, beta), gDy(*gpu_, dy), gY(*gpu_, y),
        gMean(*gpu_, mean), gRstd(*gpu_, rstd), gDx(*gpu_, dx), gDgamma(*gpu_, dgamma),
        gDbeta(*gpu_, dbeta);
    cpu_.layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(),
                          rows, cols);
    gpu_->layerNormForward(gX.get(), gGamma.get(), gBeta.get(), gY.get(), gMean.get(), gRstd.get(),
                           rows, cols);
    EXPECT_CLOSE(y, gY, kTolerance);
    EXPECT_CLOSE(mean, gMean, kTolerance);
    EXPECT_CLOSE(rstd, gRstd, kTolerance);
    for (bool acc : {true, false}) {
      cpu_.layerNormBackwardInput(dy.data(), x.data(), gamma.data(), mean.data(), rstd.data(),
                                  dx.data(), rows, cols, acc);
      gpu_->layerNormBackwardInput(gDy.get(), gX.get(), gGamma.get(), gMean.get(), gRstd.get(),
                                   gDx.get(), rows, cols, acc);
      EXPECT_CLOSE(dx, gDx, kTolerance) << " accumulate " << acc;
    }
    cpu_.layerNormBackwardWeight(dy.data(), x.data(), mean.data(), rstd.data(), dgamma.data(),
                                 dbeta.data(), rows, cols);
    gpu_->layerNormBackwardWeight(gDy.get(), gX.get(), gMean.get(), gRstd.get(), gDgamma.get(),
                                  gDbeta.get(), rows, cols);
    EXPECT_CLOSE(dgamma, gDgamma, kTolerance);
    EXPECT_CLOSE(dbeta, gDbeta, kTolerance);
  }
}

TEST_P(CudaDeviceTest, LossAndOptimizersMatchCpu) {
  for (long n : {1L, 1000L, 300001L}) {
    SCOPED_TRACE(n);
    const Vec y = randomVector(n, 1), t = randomVector(n, 2), g = randomVector(n, 3);
    DeviceVec gy(*gpu_, y), gt(*gpu_, t), gg(*gpu_, g), gdy(*gpu_, Vec(n));
    double* loss = static_cast<double*>(gpu_->allocate(sizeof(double)));
    double cpuLoss = 0, gpuLoss = 0;
    cpu_.mseForward(y.data(), t.data(), n, &cpuLoss);
    gpu_->mseForward(gy.get(), gt.get(), n, loss);
    gpu_->download(&gpuLoss, loss, sizeof(double));
    gpu_->release(loss, sizeof(double));
    EXPECT_NEAR(gpuLoss, cpuLoss, 1e-12 * cpuLoss);
    Vec dy(n);
    cpu_.mseBackward(y.data(), t.data(), dy.data(), n, 0.5f);
    gpu_->mseBackward(gy.get(), gt.get(), gdy.get(), n, 0.5f);
    EXPECT_CLOSE(dy, gdy, kTolerance);

    Vec p = y, vel = randomVector(n, 4), m = randomVector(n, 5, 0.1f), v = randomVector(n, 6);
    for (float& x : v)
      x = x * x;  // a second moment is never negative
    DeviceVec gp(*gpu_, p), gvel(*gpu_, vel), gm(*gpu_, m), gv(*gpu_, v);
    cpu_.sgdStep(p.data(), g.data(), nullptr, n, 0.1f, 0.0f);
    gpu_->sgdStep(gp.get(), gg.get(), nullptr, n, 0.1f, 0.0f);
    cpu_.sgdStep(p.data(), g.data(), vel.data(), n, 0.05f, 0.9f);
    gpu_->sgdStep(gp.get(), gg.get(), gvel.get(), n, 0.05f, 0.9f);
    EXPECT_CLOSE(vel, gvel, kTolerance);
    cpu_.adamStep(p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 10.0f,
                  1000.0f);
    gpu_->adamStep(gp.get(), gg.get(), gm.get(), gv.get(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 10.0f,
                   1000.0f);
    EXPECT_CLOSE(p, gp, kTolerance);
    EXPECT_CLOSE(m, gm, kTolerance);
    EXPECT_CLOSE(v, gv, kTolerance);
  }
}

TEST_P(CudaDeviceTest, ReductionsAreDeterministic) {
  const int rows = 1000, cols = 77;
  const long n = static_cast<long>(rows) * cols;
  const Vec x = randomVector(n, 1), dy = randomVector(n, 2), gamma(cols, 1.0f), beta(cols, 0.0f);
  DeviceVec gx(*gpu_, x), gdy(*gpu_, dy), gGamma(*gpu_, gamma), gBeta(*gpu_, beta),
      gy(*gpu_, Vec(n)), gMean(*gpu_, Vec(rows)), gRstd(*gpu_, Vec(rows));
  gpu_->layerNormForward(gx.get(), gGamma.get(), gBeta.get(), gy.get(), gMean.get(), gRstd.get(),
                         rows, cols);
  auto run = [&] {
    DeviceVec dgamma(*gpu_, Vec(cols)), dbeta(*gpu_, Vec(cols)), dw(*gpu_, Vec(cols * cols)),
        db(*gpu_, Vec(cols));
    double* loss = static_cast<double*>(gpu_->allocate(sizeof(double)));
    gpu_->layerNormBackwardWeight(gdy.get(), gx.get(), gMean.get(), gRstd.get(), dgamma.get(),
                                  dbeta.get(), rows, cols);
    gpu_->linearBackwardWeight(gdy.get(), gx.get(), dw.get(), db.get(), rows, cols, cols);
    gpu_->mseForward(gy.get(), gdy.get(), n, loss);
    double l = 0;
    gpu_->download(&l, loss, sizeof l);
    gpu_->release(loss, sizeof(double));
    Vec all = dgamma.host();
    for (const Vec& part : {dbeta.host(), dw.host(), db.host(), Vec{static_cast<float>(l)}})
      all.insert(all.end(), part.begin(), part.end());
    return std::make_pair(all, l);
  };
  const auto first = run();
  const auto second = run();
  ASSERT_EQ(first.first.size(), second.first.size());
  EXPECT_EQ(std::memcmp(first.first.data(), second.first.data(), first.first.size() * 4), 0);
  EXPECT_EQ(std::memcmp(&first.second, &second.second, sizeof(double)), 0);
}

TEST_P(CudaDeviceTest, AttentionMatchesCpu) {
  // heads ≥ batch batches the heads of a sequence; batch > heads batches the sequences.
  for (const AttentionShape s :
       {AttentionShape{4, 6, 20, 2}, {2, 33, 64, 4}, {3, 5, 12, 6}, {5, 7, 16, 2}, {1, 1, 8, 1}}) {
    SCOPED_TRACE(::testing::Message() << "batch " << s.batch << " seq " << s.seq << " hidden "
                                      << s.hidden << " heads " << s.heads);
    const long R = s.rows(), H = s.hidden;
    const Vec x = randomVector(R * H, 1), dOut = randomVector(R * H, 2);
    // Weights at the usual 1/√H scale keep the scores O(1), so the softmax is not saturated
    // and bf16's operand rounding (2⁻⁹) stays well inside its tolerance.
    const float sd = 0.5f / std::sqrt(static_cast<float>(H));
    const Vec wqkv = randomVector(3 * H * H, 3, sd), bqkv = randomVector(3 * H, 4, 0.1f);
    const Vec wo = randomVector(H * H, 5, sd), bo = randomVector(H, 6, 0.1f);
    Vec qkv(s.qkvElems()), probs(s.probsElems()), ctx(s.ctxElems()), out(R * H);
    Vec dQkv(s.qkvElems()), dX = randomVector(R * H, 7), scratch(s.backwardScratchElems());
    Vec gWqkv = randomVector(3 * H * H, 8), gBqkv = randomVector(3 * H, 9);
    Vec gWo = randomVector(H * H, 10), gBo = randomVector(H, 11);
    DeviceVec dx_(*gpu_, x), dOut_(*gpu_, dOut), wqkv_(*gpu_, wqkv), bqkv_(*gpu_, bqkv),
        wo_(*gpu_, wo), bo_(*gpu_, bo), qkv_(*gpu_, qkv), probs_(*gpu_, probs), ctx_(*gpu_, ctx),
        out_(*gpu_, out), dQkv_(*gpu_, dQkv), dX_(*gpu_, dX), scratch_(*gpu_, scratch),
        gWqkv_(*gpu_, gWqkv), gBqkv_(*gpu_, gBqkv), gWo_(*gpu_, gWo), gBo_(*gpu_, gBo);

    const AttentionWeights w{wqkv.data(), bqkv.data(), wo.data(), bo.data()};
    const AttentionWeights w_{wqkv_.get(), bqkv_.get(), wo_.get(), bo_.get()};
    const AttentionSaved saved{qkv.data(), probs.data(), ctx.data()};
    const AttentionSaved saved_{qkv_.get(), probs_.get(), ctx_.get()};
    cpu_.attentionForward(s, x.data(), w, saved, out.data());
    gpu_->attentionForward(s, dx_.get(), w_, saved_, out_.get());
    EXPECT_CLOSE(qkv, qkv_, gemmTolerance());
    EXPECT_CLOSE(probs, probs_, gemmTolerance());
    EXPECT_CLOSE(ctx, ctx_, gemmTolerance());
    EXPECT_CLOSE(out, out_, gemmTolerance());

    cpu_.attentionBackwardInput(s, w, saved, dOut.data(), dQkv.data(), dX.data(), scratch.data(),
                                true);
    gpu_->attentionBackwardInput(s, w_, saved_, dOut_.get(), dQkv_.get(), dX_.get(), scratch_.get(),
                                 true);
    EXPECT_CLOSE(dQkv, dQkv_, gemmTolerance());
    EXPECT_CLOSE(dX, dX_, gemmTolerance());

    cpu_.attentionBackwardWeight(s, x.data(), ctx.data(), dOut.data(), dQkv.data(),
                                 {gWqkv.data(), gBqkv.data(), gWo.data(), gBo.data()});
    gpu_->attentionBackwardWeight(s, dx_.get(), ctx_.get(), dOut_.get(), dQkv_.get(),
                                  {gWqkv_.get(), gBqkv_.get(), gWo_.get(), gBo_.get()});
    EXPECT_CLOSE(gWqkv, gWqkv_, gemmTolerance());
    EXPECT_CLOSE(gBqkv, gBqkv_, gemmTolerance());
    EXPECT_CLOSE(gWo, gWo_, gemmTolerance());
    EXPECT_CLOSE(gBo, gBo_, gemmTolerance());
  }
}

// A stream of a green context holding about half of the SMs: the device runs in that context
// (not the primary one), tells its size, and computes what the CPU does.
TEST(CudaDeviceGreen, RunsInTheGreenContextOfItsStream) {
  if (!probe().hasDevice) GTEST_SKIP() << "no CUDA device (" << probe().reason << ")";
  const auto& api = cuda::driverApi();
  if (!api.deviceGet || !api.deviceGetDevResource || !api.devSmResourceSplitByCount ||
      !api.devResourceGenerateDesc || !api.greenCtxCreate || !api.greenCtxStreamCreate ||
      !api.greenCtxDestroy || !api.streamDestroy || !api.streamGetCtx || !api.ctxGetCurrent)
    GTEST_SKIP() << "the driver has no green contexts";
  CUdevice dev = 0;
  ASSERT_EQ(api.deviceGet(&dev, 0), CUDA_SUCCESS);
  CUdevResource all{};
  if (api.deviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS)
    GTEST_SKIP() << "the driver has no green contexts";
  const unsigned granule = std::max(1u, all.sm.smCoscheduledAlignment);
  const unsigned want = std::max(granule, all.sm.smCount / 2 / granule * granule);
  CUdevResource group{}, rest{};
  unsigned groups = 1;
  if (api.devSmResourceSplitByCount(&group, &groups, &all, &rest, 0, want) != CUDA_SUCCESS ||
      groups < 1)
    GTEST_SKIP() << "the driver cannot split the SMs";
  CUdevResourceDesc desc = nullptr;
  ASSERT_EQ(api.devResourceGenerateDesc(&desc, &group, 1), CUDA_SUCCESS);
  CUgreenCtx green = nullptr;
  ASSERT_EQ(api.greenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), CUDA_SUCCESS);
  CUstream stream = nullptr;
  ASSERT_EQ(api.greenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0), CUDA_SUCCESS);
  {
    CudaDevice d(0, DType::Fp32, reinterpret_cast<cudaStream_t>(stream));
    EXPECT_EQ(d.stream(), reinterpret_cast<cudaStream_t>(stream));
    EXPECT_EQ(d.smCount(), group.sm.smCount);
    EXPECT_LT(d.smCount(), all.sm.smCount);
    // Another rank's code left the primary context current: makeCurrent puts the green one back.
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    d.makeCurrent();
    CUcontext current = nullptr, expected = nullptr;
    ASSERT_EQ(api.ctxGetCurrent(&current), CUDA_SUCCESS);
    ASSERT_EQ(api.streamGetCtx(stream, &expected), CUDA_SUCCESS);
    EXPECT_EQ(current, expected);

    CpuDevice cpu;
    const int rows = 130, in = 70, out = 33;
    const Vec x = randomVector(rows * in, 1), w = randomVector(out * in, 2, 0.5f);
    const Vec b = randomVector(out, 3);
    Vec y(rows * out);
    DeviceVec dX(d, x), dW(d, w), dB(d, b), dY(d, y);
    cpu.linearForward(x.data(), w.data(), b.data(), y.data(), rows, in, out);
    d.linearForward(dX.get(), dW.get(), dB.get(), dY.get(), rows, in, out);
    EXPECT_LE(relativeError(y, dY.host()), 1e-5);
    // The allocator's events live in the green context too: a block for another stream.
    OtherStream other(d);
    const std::size_t bytes = x.size() * sizeof(float);
    void* p = d.allocateFor(bytes, other.get());
    ASSERT_EQ(cudaMemcpyAsync(p, x.data(), bytes, cudaMemcpyHostToDevice, other.get()),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(other.get()), cudaSuccess);
    Vec back(x.size());
    d.readBack(back.data(), p, bytes);
    EXPECT_EQ(back, x);
    d.release(p, bytes);
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(api.streamDestroy(stream), CUDA_SUCCESS);
  EXPECT_EQ(api.greenCtxDestroy(green), CUDA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaDeviceTest, ::testing::Values(DType::Fp32, DType::Bf16),
                         [](const ::testing::TestParamInfo<DType>& param) {
                           return std::string(dtypeName(param.param));
                         });

}  // namespace
}  // namespace ps::kernels

#endif  // PIPESCOPE_TEST_HAVE_CUDA
