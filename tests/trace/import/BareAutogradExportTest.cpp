// Issue 31 §1: the autograd profiler's own export_chrome_trace (a bare array, no "cat") holds the
// framework's ranges next to the user's labels. aten:: ops, autograd nodes and engine calls and
// CUDA runtime calls are CPU ops there as in Kineto's files (cpu_op, cuda_runtime), not labels:
// before, each aten::linear / aten::mm inside a labelled F / B became an unknown OTHER op (144
// of them in the gloo 1F1B fixture).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/GlooPipelineFixture.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/import/kineto/KinetoEvent.h"
#include "trace/import/kineto/KinetoReader.h"

namespace ps::trace::import {
namespace {

std::int64_t opsOfKind(const ImportedRun& run, OpKind kind) {
  return run.stats.opsByKind[static_cast<int>(kind)];
}

ImportedRun assembleBare(std::vector<RawRankTrace> raws) {
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(raws), options);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : ImportedRun{};
}

TEST(BareAutogradExport, TheGlooRunHasNoFrameworkOpsAsOtherOps) {
  test::TempDir dir;
  testing::GlooRunSpec spec;
  spec.autogradExport = true;
  auto truth = testing::writeGlooPipeline(dir.path().string(), spec);
  ASSERT_TRUE(truth.ok()) << truth.error();
  auto raws = readTraceFiles("kineto", truth->files);
  ASSERT_TRUE(raws.ok()) << raws.error();
  const ImportedRun run = assembleBare(std::move(*raws));
  EXPECT_EQ(opsOfKind(run, OpKind::OTHER), 0) << formatImportSummary(run);
  for (const auto& [label, n] : run.stats.unknownLabels)
    ADD_FAILURE() << "unknown label " << label << " x" << n;
  EXPECT_EQ(opsOfKind(run, OpKind::F), 4 * 6 * 3);
  EXPECT_EQ(opsOfKind(run, OpKind::B), 4 * 6 * 3);
  EXPECT_EQ(opsOfKind(run, OpKind::SEND_F), 54);
  EXPECT_EQ(opsOfKind(run, OpKind::RECV_B), 54);
}

std::string bareRange(const std::string& name, int ts, int dur) {
  return R"({"name": ")" + name + R"(", "ph": "X", "ts": )" + std::to_string(ts) + R"(, "dur": )" +
         std::to_string(dur) + R"(, "tid": 1, "pid": "CPU functions", "args": {}})";
}

TEST(BareAutogradExport, FrameworkRangesAreCpuOpsAndOtherLabelsStay) {
  const std::vector<std::string> events = {
      bareRange("ProfilerStep#1", 0, 1000),
      bareRange("PP:0F0", 10, 200),
      bareRange("aten::linear", 20, 100),
      bareRange("aten::addmm", 25, 90),
      bareRange("cudaLaunchKernel", 30, 5),
      bareRange("my_data_loading", 220, 50),  // the user's own range: an unknown label
      bareRange("PP:0B0", 300, 400),
      bareRange("autograd::engine::evaluate_function: AddmmBackward0", 310, 300),
      bareRange("AddmmBackward0", 320, 280),
      bareRange("aten::mm", 330, 100),
      bareRange("torch::autograd::AccumulateGrad", 620, 20),
      bareRange("cudaMemcpyAsync", 640, 5),
      bareRange("cuLaunchKernel", 650, 5),
      bareRange("Optimizer.step#SGD.step", 800, 100),
      bareRange("aten::add_", 810, 50),
  };
  std::string json = "[";
  for (std::size_t i = 0; i < events.size(); ++i)
    json += (i ? ", " : "") + events[i];
  json += "]";
  auto raw = readKinetoBuffer(json, "rank0.json");
  ASSERT_TRUE(raw.ok()) << raw.error();
  std::vector<RawRankTrace> raws;
  raws.push_back(std::move(*raw));
  const ImportedRun run = assembleBare(std::move(raws));
  EXPECT_EQ(opsOfKind(run, OpKind::F), 1);
  EXPECT_EQ(opsOfKind(run, OpKind::B), 1);
  EXPECT_EQ(opsOfKind(run, OpKind::OPT), 1);
  EXPECT_EQ(opsOfKind(run, OpKind::OTHER), 1) << formatImportSummary(run);
  EXPECT_EQ(run.stats.unknownLabels, (std::map<std::string, std::int64_t>{{"my_data_loading", 1}}));
  EXPECT_EQ(run.steps, 1);
}

TEST(BareAutogradExport, CategoryByName) {
  EXPECT_EQ(kinetoCategoryOfUncategorised("aten::mm"), KinetoCategory::CpuOp);
  EXPECT_EQ(kinetoCategoryOfUncategorised("MmBackward0"), KinetoCategory::CpuOp);
  EXPECT_EQ(kinetoCategoryOfUncategorised("record_param_comms"), KinetoCategory::CpuOp);
  EXPECT_EQ(kinetoCategoryOfUncategorised("NativeLayerNormBackward"), KinetoCategory::CpuOp);
  EXPECT_EQ(kinetoCategoryOfUncategorised("cudaStreamSynchronize"), KinetoCategory::Launch);
  EXPECT_EQ(kinetoCategoryOfUncategorised("hipLaunchKernel"), KinetoCategory::Launch);
  // Labels: the user's, c10d's and gloo's calls (transfers in such a file), steps.
  for (const char* label : {"PP:0F3", "forward-compute", "backward-compute", "c10d::send",
                            "gloo:recv", "nccl:send", "ProfilerStep#4", "Backward", "cuda", "cube",
                            "F0.1", "Optimizer.step#SGD.step", "Stage 1 Backward"})
    EXPECT_EQ(kinetoCategoryOfUncategorised(label), KinetoCategory::Missing) << label;
}

}  // namespace
}  // namespace ps::trace::import
