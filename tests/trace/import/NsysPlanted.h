#pragma once
// What the nsys reader tests share: one planted rank (a pipeline op over two kernels, NCCL
// kernels and copies after it) and a fixture that writes ranks as an export and reads it back.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/NsysFixture.h"
#include "trace/import/nsys/NsysReader.h"
#include "trace/import/nsys/NsysTracks.h"

namespace ps::trace::import::testing {

inline constexpr const char* kNsysSendRecv =
    "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
inline constexpr const char* kNsysAllReduce =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)";
inline constexpr int kNsysPid = 4000;  // NsysFixtureOptions::basePid + rank 0

inline std::int32_t gpuTrack(std::int64_t device, std::int64_t stream) {
  return nsys::kGpuTrackBase + static_cast<std::int32_t>((device << 18) + stream);
}

// One pipeline op PP:1F3 (step 2) with two kernels below it, NCCL kernels and copies after it.
inline FixtureRank plantedNsysRank(int rank = 0) {
  FixtureRank r;
  r.rank = rank;
  r.events = {
      {FixtureEventKind::Annotation, "PP:1F3", 1'000'000, 5'000'000, -1, -1, 2},
      {FixtureEventKind::Kernel, "gemm_fwd", 1'200'000, 2'000'000},
      {FixtureEventKind::Kernel, "gelu_fwd", 2'100'000, 3'000'000},
      {FixtureEventKind::Nccl, kNsysSendRecv, 6'000'000, 7'000'000},
      {FixtureEventKind::Nccl, kNsysAllReduce, 7'500'000, 8'000'000},
      {FixtureEventKind::Memcpy, "", 8'100'000, 8'200'000, 1, 1 << 20},
      {FixtureEventKind::Memcpy, "", 8'300'000, 8'310'000, -1, 4096},
  };
  r.memory = {{100'000, 1000}, {200'000, 3000}, {300'000, 2000}, {400'000, 2500}};
  return r;
}

class NsysReaderTest : public ::testing::Test {
 protected:
  // Writes `ranks` with `options` and reads the file back; fails the test on an error.
  std::vector<RawRankTrace> roundTrip(const std::vector<FixtureRank>& ranks,
                                      const NsysFixtureOptions& options = {}) {
    const std::string path = dir_.file("report.sqlite");
    const Status written = testing::writeNsysFixture(path, ranks, options);
    EXPECT_TRUE(written.ok()) << written.error();
    auto traces = readNsysFile(path);
    EXPECT_TRUE(traces.ok()) << traces.error();
    return traces.ok() ? std::move(*traces) : std::vector<RawRankTrace>{};
  }
  RawRankTrace single(const FixtureRank& rank, const NsysFixtureOptions& options = {}) {
    auto traces = roundTrip({rank}, options);
    EXPECT_EQ(traces.size(), 1U);
    return traces.empty() ? RawRankTrace{} : std::move(traces.front());
  }

  ps::test::TempDir dir_;
};

}  // namespace ps::trace::import::testing
