// The nsys reader against exports written by NsysFixture (planted ops, exact expected values).
// Real exports of several nsys versions: NsysExternalTracesTest.cpp.

#include "trace/import/nsys/NsysReader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/NsysFixture.h"
#include "tests/trace/import/NsysPlanted.h"
#include "tests/trace/import/RawTraceQueries.h"
#include "trace/import/nsys/NsysTracks.h"
#include "trace/store/Sqlite.h"

namespace ps::trace::import {
namespace {

using testing::allWarnings;
using testing::eventsOf;
using testing::FixtureEvent;
using testing::FixtureEventKind;
using testing::FixtureRank;
using testing::gpuTrack;
using testing::hasWarning;
using testing::kNsysPid;
using testing::kNsysSendRecv;
using testing::NsysFixtureOptions;
using testing::NsysReaderTest;
using testing::plantedNsysRank;

TEST_F(NsysReaderTest, PushPopRangeProjectsOntoExactlyItsKernels) {
  NsysFixtureOptions options;
  options.hostLeadNs = 500'000;  // the host runs half a millisecond ahead of the GPU
  const RawRankTrace t = single(plantedNsysRank(), options);
  EXPECT_EQ(t.format, "nsys");
  EXPECT_FALSE(t.rank.has_value());

  const auto cpu = eventsOf(t, EventSource::CpuAnnotation);
  ASSERT_EQ(cpu.size(), 1U);
  EXPECT_EQ(t.nameOf(cpu[0]), "PP:1F3");
  EXPECT_EQ(cpu[0].start_ns, 500'000);
  EXPECT_EQ(cpu[0].end_ns, 4'500'000);
  EXPECT_EQ(cpu[0].track, kNsysPid);  // the main thread
  EXPECT_EQ(cpu[0].step, 2);
  EXPECT_EQ(cpu[0].depth, 0);

  const auto gpu = eventsOf(t, EventSource::GpuAnnotation);
  ASSERT_EQ(gpu.size(), 1U);
  EXPECT_EQ(t.nameOf(gpu[0]), "PP:1F3");
  EXPECT_EQ(gpu[0].start_ns, 1'200'000);  // gemm_fwd start
  EXPECT_EQ(gpu[0].end_ns, 3'000'000);    // gelu_fwd end
  EXPECT_EQ(gpu[0].track, gpuTrack(0, testing::kFixtureComputeStream));
  EXPECT_EQ(gpu[0].step, 2);
}

TEST_F(NsysReaderTest, StartEndRangeProjectsToo) {
  NsysFixtureOptions options;
  options.startEndRanges = true;
  options.hostLeadNs = 100'000;
  const RawRankTrace t = single(plantedNsysRank(), options);
  const auto gpu = eventsOf(t, EventSource::GpuAnnotation);
  ASSERT_EQ(gpu.size(), 1U);
  EXPECT_EQ(gpu[0].start_ns, 1'200'000);
  EXPECT_EQ(gpu[0].end_ns, 3'000'000);
  const auto cpu = eventsOf(t, EventSource::CpuAnnotation);
  ASSERT_EQ(cpu.size(), 1U);
  EXPECT_EQ(cpu[0].start_ns, 900'000);
}

TEST_F(NsysReaderTest, RegisteredStringNameComesFromStringIds) {
  NsysFixtureOptions options;
  options.registeredNames = true;
  const RawRankTrace t = single(plantedNsysRank(), options);
  const auto cpu = eventsOf(t, EventSource::CpuAnnotation);
  ASSERT_EQ(cpu.size(), 1U);
  EXPECT_EQ(t.nameOf(cpu[0]), "PP:1F3");
  EXPECT_EQ(eventsOf(t, EventSource::GpuAnnotation).size(), 1U);
}

TEST_F(NsysReaderTest, NcclKernelsCarryTheirOperation) {
  const RawRankTrace t = single(plantedNsysRank());
  const auto nccl = eventsOf(t, EventSource::NcclKernel);
  ASSERT_EQ(nccl.size(), 2U);
  EXPECT_EQ(t.nameOf(nccl[0]), kNsysSendRecv);
  EXPECT_EQ(nccl[0].comm, CommOp::SendRecv);
  EXPECT_EQ(nccl[0].track, gpuTrack(0, testing::kFixtureNcclStream));
  EXPECT_EQ(nccl[1].comm, CommOp::AllReduce);
  EXPECT_EQ(nccl[1].start_ns, 7'500'000);
  const auto kernels = eventsOf(t, EventSource::Kernel);
  ASSERT_EQ(kernels.size(), 2U);
  EXPECT_EQ(t.nameOf(kernels[0]), "gemm_fwd");
  EXPECT_EQ(kernels[0].comm, CommOp::None);
  EXPECT_EQ(kernels[1].end_ns, 3'000'000);
}

TEST_F(NsysReaderTest, PeerToPeerCopyHasBytesAndPeerDevice) {
  const RawRankTrace t = single(plantedNsysRank());
  const auto copies = eventsOf(t, EventSource::Memcpy);
  ASSERT_EQ(copies.size(), 2U);
  EXPECT_EQ(t.nameOf(copies[0]), "Memcpy PtoP");
  EXPECT_EQ(copies[0].bytes, 1 << 20);
  EXPECT_EQ(copies[0].peer, 1);
  EXPECT_EQ(t.nameOf(copies[1]), "Memcpy HtoD");
  EXPECT_EQ(copies[1].bytes, 4096);
  EXPECT_EQ(copies[1].peer, -1);
}

TEST_F(NsysReaderTest, MemoryUsageBecomesRunningTotalsOfDeviceMemory) {
  NsysFixtureOptions options;
  options.pinnedHostBytes = 999'999;  // host memory: must not count
  const RawRankTrace t = single(plantedNsysRank(), options);
  ASSERT_EQ(t.memory.size(), 4U);
  const std::pair<std::int64_t, std::int64_t> expected[] = {
      {100'000, 1000}, {200'000, 3000}, {300'000, 2000}, {400'000, 2500}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.memory[i].t_ns, expected[i].first) << i;
    EXPECT_EQ(t.memory[i].bytes, expected[i].second) << i;
  }
}

TEST_F(NsysReaderTest, SessionStartDeviceAndHost) {
  FixtureRank r = plantedNsysRank();
  r.wallClockBaseNs = 1'733'877'925'987'393'218;
  const RawRankTrace t = single(r);
  EXPECT_EQ(t.wallClockOffsetNs, 1'733'877'925'987'393'218);
  EXPECT_EQ(t.device, "NVIDIA H200 (sm_90)");
  EXPECT_EQ(t.memoryCapacityBytes, 141LL << 30);
  EXPECT_EQ(t.host, "node01");
}

TEST_F(NsysReaderTest, ClockSkewIsAppliedExactly) {
  const std::int64_t skew = 123'456'789;
  FixtureRank skewed = plantedNsysRank();
  skewed.clockSkewNs = skew;
  const RawRankTrace plain = single(plantedNsysRank());
  const RawRankTrace t = single(skewed);
  ASSERT_EQ(t.events.size(), plain.events.size());
  ASSERT_EQ(t.events.size(), 8U);  // 1 CPU + 1 GPU annotation, 2 kernels, 2 NCCL, 2 copies
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    EXPECT_EQ(t.events[i].start_ns, plain.events[i].start_ns + skew) << i;
    EXPECT_EQ(t.events[i].end_ns, plain.events[i].end_ns + skew) << i;
  }
  ASSERT_EQ(t.memory.size(), plain.memory.size());
  EXPECT_EQ(t.memory[0].t_ns, 100'000 + skew);
  EXPECT_EQ(t.wallClockOffsetNs, plain.wallClockOffsetNs);
}

TEST_F(NsysReaderTest, EnumCodesAreResolvedByName) {
  NsysFixtureOptions options;
  options.enumCodeOffset = 100;  // every code moved: only names still match
  options.pinnedHostBytes = 5;
  const RawRankTrace t = single(plantedNsysRank(), options);
  EXPECT_EQ(eventsOf(t, EventSource::CpuAnnotation).size(), 1U);
  EXPECT_EQ(eventsOf(t, EventSource::GpuAnnotation).size(), 1U);
  const auto copies = eventsOf(t, EventSource::Memcpy);
  ASSERT_EQ(copies.size(), 2U);
  EXPECT_EQ(copies[0].peer, 1);
  EXPECT_EQ(t.nameOf(copies[0]), "Memcpy PtoP");
  ASSERT_EQ(t.memory.size(), 4U);
  EXPECT_EQ(t.memory[3].bytes, 2500);
  EXPECT_TRUE(t.warnings.empty()) << allWarnings(t);
}

TEST_F(NsysReaderTest, WithoutEnumTablesDocumentedCodesServeWithWarnings) {
  NsysFixtureOptions options;
  options.writeEnumTables = false;
  const RawRankTrace t = single(plantedNsysRank(), options);
  EXPECT_EQ(eventsOf(t, EventSource::GpuAnnotation).size(), 1U);
  EXPECT_EQ(eventsOf(t, EventSource::Memcpy).front().peer, 1);
  EXPECT_EQ(t.memory.size(), 4U);
  EXPECT_TRUE(hasWarning(t, "no ENUM_NSYS_EVENT_TYPE table")) << allWarnings(t);
  EXPECT_TRUE(hasWarning(t, "no ENUM_CUDA_MEMCPY_OPER table")) << allWarnings(t);
}

TEST_F(NsysReaderTest, TrimmedSchemaImportsWithWarnings) {
  NsysFixtureOptions options;
  options.trimmedGpuInfo = true;
  options.dropTables = {"META_DATA_EXPORT", "NVTX_EVENTS", "TARGET_INFO_SESSION_START_TIME"};
  const RawRankTrace t = single(plantedNsysRank(), options);
  EXPECT_EQ(eventsOf(t, EventSource::Kernel).size(), 2U);
  EXPECT_EQ(eventsOf(t, EventSource::NcclKernel).size(), 2U);
  EXPECT_TRUE(eventsOf(t, EventSource::CpuAnnotation).empty());
  EXPECT_EQ(t.device, "NVIDIA H200 (sm_90)");  // from TARGET_INFO_CUDA_GPU
  EXPECT_EQ(t.memoryCapacityBytes, 141LL << 30);
  EXPECT_FALSE(t.wallClockOffsetNs.has_value());
  EXPECT_TRUE(hasWarning(t, "no META_DATA_EXPORT table")) << allWarnings(t);
  EXPECT_TRUE(hasWarning(t, "no NVTX_EVENTS table")) << allWarnings(t);
  EXPECT_TRUE(hasWarning(t, "TARGET_INFO_SESSION_START_TIME")) << allWarnings(t);
}

TEST_F(NsysReaderTest, OlderColumnsAreDiscovered) {
  NsysFixtureOptions options;
  options.stepPayloadColumn = "int32Value";
  options.dropColumns = {{"CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"},
                         {"CUPTI_ACTIVITY_KIND_KERNEL", "greenContextId"},
                         {"NVTX_EVENTS", "int64Value"},
                         {"NVTX_EVENTS", "binaryData"},
                         {"CUPTI_ACTIVITY_KIND_MEMCPY", "srcDeviceId"}};
  const RawRankTrace t = single(plantedNsysRank(), options);
  const auto kernels = eventsOf(t, EventSource::Kernel);
  ASSERT_EQ(kernels.size(), 2U);
  EXPECT_EQ(t.nameOf(kernels[0]), "gemm_fwd");  // from shortName
  const auto gpu = eventsOf(t, EventSource::GpuAnnotation);
  ASSERT_EQ(gpu.size(), 1U);
  EXPECT_EQ(gpu[0].step, 2);                                    // from int32Value
  EXPECT_EQ(eventsOf(t, EventSource::Memcpy).front().peer, 1);  // from dstDeviceId alone
}

TEST_F(NsysReaderTest, MissingKernelTableIsAWarning) {
  NsysFixtureOptions options;
  options.dropTables = {"CUPTI_ACTIVITY_KIND_KERNEL"};
  const RawRankTrace t = single(plantedNsysRank(), options);
  EXPECT_TRUE(hasWarning(t, "no CUPTI_ACTIVITY_KIND_KERNEL table: kernels not imported"))
      << allWarnings(t);
  EXPECT_EQ(eventsOf(t, EventSource::Memcpy).size(), 2U);
  // The range launched only kernels, which are gone: nothing to project.
  EXPECT_TRUE(eventsOf(t, EventSource::GpuAnnotation).empty());
}

TEST_F(NsysReaderTest, TwoProcessesGiveTwoTracesInPidOrder) {
  FixtureRank r1 = plantedNsysRank(1);
  r1.deviceName = "NVIDIA H100";
  r1.events[0].name = "PP:0F3";
  r1.events[5].peer = 0;  // device 1 copies to device 0
  const auto traces = roundTrip({r1, plantedNsysRank(0)});
  ASSERT_EQ(traces.size(), 2U);
  EXPECT_EQ(traces[0].device, "NVIDIA H200 (sm_90)");
  EXPECT_EQ(traces[1].device, "NVIDIA H100 (sm_90)");
  EXPECT_EQ(traces[0].nameOf(eventsOf(traces[0], EventSource::CpuAnnotation).at(0)), "PP:1F3");
  EXPECT_EQ(traces[1].nameOf(eventsOf(traces[1], EventSource::CpuAnnotation).at(0)), "PP:0F3");
  const auto gpu1 = eventsOf(traces[1], EventSource::GpuAnnotation);
  ASSERT_EQ(gpu1.size(), 1U);
  EXPECT_EQ(gpu1[0].track, gpuTrack(1, testing::kFixtureComputeStream));
  EXPECT_EQ(eventsOf(traces[1], EventSource::Memcpy).front().peer, 0);
  for (const auto& t : traces) {
    EXPECT_EQ(t.events.size(), 8U);
    EXPECT_EQ(t.memory.size(), 4U);
  }
}

TEST_F(NsysReaderTest, NestedRangesGetDepthsOnBothTracks) {
  FixtureRank r = plantedNsysRank();
  r.events.push_back({FixtureEventKind::Annotation, "forward", 900'000, 5'100'000});
  r.profilerSteps = {{0, 5'500'000}, {5'500'000, 9'000'000}};
  const RawRankTrace t = single(r);
  std::map<std::string, std::pair<int, int>> depth;  // name -> (cpu, gpu)
  for (const auto& e : t.events) {
    if (e.source == EventSource::CpuAnnotation) depth[t.nameOf(e)].first = e.depth;
    if (e.source == EventSource::GpuAnnotation) depth[t.nameOf(e)].second = e.depth;
  }
  EXPECT_EQ(depth["ProfilerStep#0"], std::make_pair(0, 0));
  EXPECT_EQ(depth["forward"], std::make_pair(1, 1));
  EXPECT_EQ(depth["PP:1F3"], std::make_pair(2, 2));
  ASSERT_EQ(t.steps.size(), 2U);
  EXPECT_EQ(t.steps[1].number, 1);
  EXPECT_EQ(t.steps[1].start_ns, 5'500'000);
  EXPECT_EQ(t.steps[1].end_ns, 9'000'000);
  // ProfilerStep#1 launched the NCCL kernels and copies: its GPU span is theirs.
  for (const auto& e : eventsOf(t, EventSource::GpuAnnotation)) {
    if (t.nameOf(e) != "ProfilerStep#1") continue;
    EXPECT_EQ(e.start_ns, 6'000'000);
    EXPECT_EQ(e.end_ns, 8'310'000);
  }
}

TEST_F(NsysReaderTest, MemsetAndRankHintFromHandAddedRows) {
  const std::string path = dir_.file("report.sqlite");
  ASSERT_TRUE(testing::writeNsysFixture(path, {plantedNsysRank()}).ok());
  {
    auto db = SqliteDb::open(path, SqliteDb::Mode::ReadWriteCreate);
    ASSERT_TRUE(db.ok());
    const std::string gpid = std::to_string(testing::fixtureGlobalPid({}, 0));
    const std::string gtid = std::to_string(testing::fixtureGlobalTid({}, 0));
    ASSERT_TRUE(db->exec("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, \"end\", deviceId, "
                         "contextId, streamId, correlationId, globalPid, value, bytes) VALUES "
                         "(9000000, 9000500, 0, 1, 7, 5000, " +
                         gpid + ", 0, 65536)")
                    .ok());
    ASSERT_TRUE(db->exec("INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid) VALUES "
                         "(10, 39, 'MPI Rank 3', " +
                         gtid + ")")
                    .ok());
  }
  auto traces = readNsysFile(path);
  ASSERT_TRUE(traces.ok()) << traces.error();
  ASSERT_EQ(traces->size(), 1U);
  const RawRankTrace& t = traces->front();
  const auto memsets = eventsOf(t, EventSource::Memset);
  ASSERT_EQ(memsets.size(), 1U);
  EXPECT_EQ(memsets[0].bytes, 65536);
  EXPECT_EQ(t.nameOf(memsets[0]), "Memset");
  EXPECT_EQ(t.rank, 3);
}

}  // namespace
}  // namespace ps::trace::import
