// The nsys reader against real exports of several nsys versions, found under
// $PIPESCOPE_EXTERNAL_TRACES/nsys; skipped when the variable is unset.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/trace/import/RawTraceQueries.h"
#include "trace/import/nsys/NsysReader.h"

namespace ps::trace::import {
namespace {

using testing::allWarnings;
using testing::eventsOf;
using testing::hasWarning;

std::string externalDir() {
  const char* root = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  return root == nullptr ? std::string() : std::string(root) + "/nsys";
}

std::map<EventSource, int> countBySource(const RawRankTrace& t) {
  std::map<EventSource, int> counts;
  for (const auto& e : t.events)
    ++counts[e.source];
  return counts;
}

TEST(NsysExternalTraces, EveryFileImports) {
  const std::string dir = externalDir();
  if (dir.empty() || !std::filesystem::is_directory(dir))
    GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES not set";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string path = entry.path().string();
    auto traces = readNsysFile(path);
    ASSERT_TRUE(traces.ok()) << traces.error();
    std::printf("%s: %zu rank(s)\n", entry.path().filename().c_str(), traces->size());
    for (const auto& t : *traces) {
      std::printf("  device %s, host %s, rank %s, %zu memory samples, %zu steps\n",
                  t.device.value_or("?").c_str(), t.host.value_or("?").c_str(),
                  t.rank ? std::to_string(*t.rank).c_str() : "unset", t.memory.size(),
                  t.steps.size());
      for (const auto& [source, count] : countBySource(t))
        std::printf("    %-15s %d\n", std::string(eventSourceName(source)).c_str(), count);
      for (const auto& w : t.warnings)
        std::printf("    warning: %s\n", w.c_str());
    }
  }
  EXPECT_GE(files, 4);
}

RawRankTrace readExternal(const std::string& name) {
  auto traces = readNsysFile(externalDir() + "/" + name);
  EXPECT_TRUE(traces.ok()) << traces.error();
  EXPECT_EQ(traces.ok() ? traces->size() : 0U, 1U);
  return traces.ok() && !traces->empty() ? std::move(traces->front()) : RawRankTrace{};
}

TEST(NsysExternalTraces, PipitSaxpyHasAnnotationsKernelsAndCopies) {
  if (externalDir().empty()) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES not set";
  const RawRankTrace t = readExternal("pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
  const auto counts = countBySource(t);
  EXPECT_EQ(counts.count(EventSource::Kernel) ? counts.at(EventSource::Kernel) : 0, 5);
  EXPECT_EQ(counts.count(EventSource::Memcpy) ? counts.at(EventSource::Memcpy) : 0, 15);
  EXPECT_EQ(counts.count(EventSource::CpuAnnotation) ? counts.at(EventSource::CpuAnnotation) : 0,
            22);
  // Each "saxpy" range launched one kernel: its GPU version is exactly that kernel.
  const auto kernels = eventsOf(t, EventSource::Kernel);
  const auto gpu = eventsOf(t, EventSource::GpuAnnotation);
  std::vector<RawEvent> saxpy;
  for (const auto& e : gpu)
    if (t.nameOf(e) == "saxpy") saxpy.push_back(e);
  ASSERT_EQ(saxpy.size(), 5U);
  EXPECT_EQ(saxpy[0].start_ns, 924'922'186);
  EXPECT_EQ(saxpy[0].end_ns, 942'626'994);
  EXPECT_EQ(t.device, "NVIDIA A100-SXM4-40GB (sm_80)");
  EXPECT_EQ(t.wallClockOffsetNs, 1'687'813'257'637'297'504);
  EXPECT_EQ(t.rank, 0);  // the MPI trace names the thread "MPI Rank 0"
}

TEST(NsysExternalTraces, QcuRuntimeOnlyWarnsAboutKernels) {
  if (externalDir().empty()) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES not set";
  const RawRankTrace t = readExternal("qcu_test_report3_runtime_only_no_kernels.sqlite");
  EXPECT_TRUE(t.events.empty());
  EXPECT_TRUE(hasWarning(t, "no CUPTI_ACTIVITY_KIND_KERNEL table: kernels not imported"))
      << allWarnings(t);
  EXPECT_EQ(t.device, "NVIDIA GeForce RTX 4060 Laptop GPU (sm_89)");
}

TEST(NsysExternalTraces, ExtrapTrimmedHasSixKernels) {
  if (externalDir().empty()) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES not set";
  const RawRankTrace t = readExternal("extrap_ex-gpu.s10.sqlite");
  EXPECT_EQ(eventsOf(t, EventSource::Kernel).size(), 6U);
  EXPECT_EQ(t.device, "A100-PCIE-40GB (sm_80)");
  EXPECT_EQ(t.memoryCapacityBytes, 42'505'273'344);
  EXPECT_TRUE(hasWarning(t, "META_DATA_EXPORT")) << allWarnings(t);
}

TEST(NsysExternalTraces, NvfuserH200HasNestedRangesOnTheGpu) {
  if (externalDir().empty()) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES not set";
  const RawRankTrace t = readExternal("nvfuser_report1_h200_nsys2024.6.sqlite");
  EXPECT_EQ(eventsOf(t, EventSource::CpuAnnotation).size(), 652U);
  EXPECT_EQ(eventsOf(t, EventSource::Kernel).size(), 19U);
  EXPECT_FALSE(eventsOf(t, EventSource::GpuAnnotation).empty());
  EXPECT_EQ(t.device, "NVIDIA H200 (sm_90)");
  EXPECT_EQ(t.memoryCapacityBytes, 150'137'864'192);
  int nested = 0;
  for (const auto& e : t.events)
    nested += e.depth > 0 ? 1 : 0;
  EXPECT_GT(nested, 0);
}

}  // namespace
}  // namespace ps::trace::import
