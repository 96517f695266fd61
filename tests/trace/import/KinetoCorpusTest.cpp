// The Kineto reader on real traces written by other tools (/work/shared/traces/SOURCES.md), read
// through PIPESCOPE_EXTERNAL_TRACES; skipped when it is unset.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

// Real traces written by other tools (see /work/shared/traces/SOURCES.md).
TEST(KinetoReaderExternalTest, EveryCorpusFileImports) {
  const char* root = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  if (root == nullptr) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES is not set";
  const std::filesystem::path dir = std::filesystem::path(root) / "kineto";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << dir << " does not exist";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());

  int dlrmWorkers = 0;
  bool sawDeepseek = false;
  bool sawPippy = false;
  for (const auto& file : files) {
    auto trace = readKinetoFile(file.string());
    ASSERT_TRUE(trace.ok()) << trace.error();
    std::map<std::string, int> bySource;
    for (const RawEvent& e : trace->events)
      ++bySource[std::string(eventSourceName(e.source))];
    std::cout << file.lexically_relative(dir).string() << ": rank "
              << (trace->rank ? std::to_string(*trace->rank) : "?") << "/"
              << (trace->worldSize ? std::to_string(*trace->worldSize) : "?") << ", device "
              << trace->device.value_or("?") << ", events";
    for (const auto& [source, count] : bySource)
      std::cout << " " << source << "=" << count;
    std::cout << ", steps " << trace->steps.size() << ", memory samples " << trace->memory.size()
              << ", wall offset "
              << (trace->wallClockOffsetNs ? std::to_string(*trace->wallClockOffsetNs) : "?")
              << "\n";
    for (const auto& w : trace->warnings)
      std::cout << "    warning: " << w << "\n";

    const std::string name = file.filename().string();
    if (name.rfind("worker", 0) == 0) {
      ++dlrmWorkers;
      const int worker = name[6] - '0';
      EXPECT_EQ(trace->rank, worker) << name;
      EXPECT_EQ(trace->worldSize, 8) << name;
      EXPECT_GT(bySource["nccl_kernel"], 0) << name;
      EXPECT_EQ(trace->wallClockOffsetNs, 0) << name;  // legacy: absolute epoch µs
      ASSERT_EQ(trace->steps.size(), 1U) << name;
      EXPECT_EQ(trace->steps[0].number, 10) << name;
      EXPECT_EQ(trace->device, "Tesla V100-SXM2-32GB (sm_70)") << name;
      const auto sendRecv =
          std::count_if(trace->events.begin(), trace->events.end(),
                        [](const RawEvent& e) { return e.comm == CommOp::SendRecv; });
      EXPECT_GT(sendRecv, 0) << name;
    }
    if (name == "deepseek_dualpipe_train.json") {
      sawDeepseek = true;
      EXPECT_GT(bySource["kernel"], 0);
      EXPECT_GT(bySource["cpu_annotation"], 0);
      EXPECT_EQ(trace->rank, 0);
      EXPECT_EQ(trace->worldSize, 64);
    }
    if (name == "pippy_pipe_visualized.json") {
      sawPippy = true;
      EXPECT_EQ(bySource["cpu_annotation"], 36);
      EXPECT_EQ(std::count_if(trace->events.begin(), trace->events.end(),
                              [&](const RawEvent& e) {
                                return e.source == EventSource::CpuAnnotation &&
                                       trace->nameOf(e) == "F_0,0";
                              }),
                1);
    }
    if (name == "nccl_data_rank0of2_ddp.json.gz") {
      EXPECT_EQ(trace->wallClockOffsetNs, 1'711'964'646'000'000'000);
      EXPECT_GT(bySource["gpu_annotation"], 0);
      EXPECT_GT(bySource["nccl_kernel"], 0);
    }
    if (name == "rank_not_found.json.gz") {
      EXPECT_FALSE(trace->rank.has_value());
    }
  }
  EXPECT_EQ(dlrmWorkers, 8);
  EXPECT_TRUE(sawDeepseek);
  EXPECT_TRUE(sawPippy);
}

}  // namespace
}  // namespace ps::trace::import
