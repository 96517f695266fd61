// CudaDevice's memory side: the caching allocator (zeroed blocks, reuse, blocks for other
// streams ordered after their previous users, a named out-of-memory error), pinned upload
// staging, readBack, the device's context and green contexts. Without a CUDA device every CUDA
// test skips and says why; CpuDevice's readBack and opening a missing device run everywhere.

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
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

#include "kernels/cuda/CudaDriverApi.h"
#include "tests/kernels/CudaDeviceTestSupport.h"

namespace ps::kernels {
namespace {

using namespace cudatest;  // NOLINT: the shared fixture and helpers of this test binary

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

TEST_P(CudaDeviceTest, UploadFromADevicePointerCopies) {
  // upload() takes any source the driver can address: a device one too (was HostToDevice, which
  // the driver refuses or misreads for device memory).
  const Vec a = randomVector(513, 2);
  DeviceVec src(*gpu_, a);
  DeviceVec dst(*gpu_, Vec(a.size()));
  gpu_->upload(dst.get(), src.get(), a.size() * sizeof(float));
  EXPECT_EQ(dst.host(), a);
}

TEST_P(CudaDeviceTest, FixedStagingMovesLargeTransfersInPiecesBothWays) {
  // Pinned once at setup (no cudaHostAlloc while NCCL may wait); a pageable download goes
  // through the pinned slots, polled, so that an abort is seen (issue 32 §5).
  gpu_->setWaitPoll([] { return false; });
  gpu_->fixStaging(64u << 10);
  const Vec a = randomVector(300 * 1024 / 4 + 5, 7);  // ~4.7 slots of 64 KiB
  DeviceVec dst(*gpu_, Vec(a.size()));
  gpu_->upload(dst.get(), a.data(), a.size() * sizeof(float));
  Vec back(a.size());
  gpu_->download(back.data(), dst.get(), back.size() * sizeof(float));
  EXPECT_EQ(back, a);
  gpu_->setWaitPoll(nullptr);
}

TEST(CudaDeviceGreen, RunsInTheGreenContextOfItsStream) {
  if (!probe().hasDevice) GTEST_SKIP() << "no CUDA device (" << probe().reason << ")";
  const auto& api = cuda::driverApi();
  if (!api.deviceGet || !api.deviceGetDevResource || !api.devSmResourceSplitByCount ||
      !api.devResourceGenerateDesc || !api.greenCtxCreate || !api.greenCtxStreamCreate ||
      !api.greenCtxDestroy || !api.streamDestroy || !api.ctxFromGreenCtx || !api.ctxGetCurrent)
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
    CudaDevice d(0, DType::Fp32, reinterpret_cast<cudaStream_t>(stream), green);
    EXPECT_EQ(d.stream(), reinterpret_cast<cudaStream_t>(stream));
    EXPECT_EQ(d.smCount(), group.sm.smCount);
    EXPECT_LT(d.smCount(), all.sm.smCount);
    // Another rank's code left the primary context current: makeCurrent puts the green one back.
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    d.makeCurrent();
    CUcontext current = nullptr, expected = nullptr;
    ASSERT_EQ(api.ctxGetCurrent(&current), CUDA_SUCCESS);
    ASSERT_EQ(api.ctxFromGreenCtx(&expected, green), CUDA_SUCCESS);
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
    // Another rank's thread (in the primary context) takes the block for its stream: the green
    // context, current on this thread, is never made current on that one (issue 32 §2).
    CUcontext primary = nullptr, onSender = nullptr;
    void* q = nullptr;
    std::thread sender([&] {
      cudaSetDevice(0);
      api.ctxGetCurrent(&primary);
      q = d.allocateFor(bytes, other.get());
      api.ctxGetCurrent(&onSender);
      cudaStreamSynchronize(other.get());
    });
    sender.join();
    d.release(q, bytes);  // by the owner's thread, as the ranks do
    EXPECT_EQ(onSender, primary);
    EXPECT_NE(onSender, expected);
    // A set-up thread leaves the green context for the primary one.
    d.makeCurrent();
    d.usePrimaryContext();
    ASSERT_EQ(api.ctxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, primary);
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(api.streamDestroy(stream), CUDA_SUCCESS);
  EXPECT_EQ(api.greenCtxDestroy(green), CUDA_SUCCESS);
}

}  // namespace
}  // namespace ps::kernels

#endif  // PIPESCOPE_TEST_HAVE_CUDA
