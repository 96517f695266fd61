// GPU truth for Kineto CPU ranges (issue 31 §1): a record_function range is measured on the GPU
// work it launched (cuda_runtime calls inside it -> args.correlation -> kernels), each stream is
// a track, and the analysis runs on GPU time. Before, the ops kept their CPU times: F0 was
// [10, 20] µs here although its kernels ran at [100, 300] µs.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/TestUtil.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/StepGraph.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/kineto/KinetoReader.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

constexpr int kThread = 100;  // the Python thread that records the ranges
constexpr int kComputeStream = 7;
constexpr int kCommStream = 20;

std::string range(const std::string& name, int ts, int dur) {
  return R"({"ph":"X","cat":"user_annotation","name":")" + name + R"(","pid":1,"tid":)" +
         std::to_string(kThread) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + "}";
}

std::string launch(int ts, int correlation) {
  return R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":)" +
         std::to_string(kThread) + R"(,"ts":)" + std::to_string(ts) +
         R"(,"dur":1,"args":{"External id":)" + std::to_string(correlation) +
         R"(,"cbid":211,"correlation":)" + std::to_string(correlation) + "}}";
}

std::string kernel(const std::string& name, int stream, int ts, int dur, int correlation,
                   const std::string& extraArgs = "") {
  return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":)" +
         std::to_string(stream) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + R"(,"args":{"queued":0,"device":0,"context":1,"stream":)" +
         std::to_string(stream) + R"(,"correlation":)" + std::to_string(correlation) + extraArgs +
         "}}";
}

// Two micro-batches of one stage (torch-pipelining labels PP:0F0 ... PP:0B1), the all-to-all
// between them launched from its own range onto the communication stream, where it overlaps F1.
// CPU times (µs) are far from the GPU ones, as the launch queue makes them.
std::string twoStreamTrace() {
  std::vector<std::string> e = {
      range("ProfilerStep#3", 0, 80),
      range("PP:0F0", 10, 10),
      launch(11, 1),
      launch(12, 2),
      range("nccl:all_to_all", 20, 5),
      launch(21, 3),
      range("PP:0F1", 25, 10),
      launch(26, 4),
      range("PP:0B0", 40, 10),
      launch(41, 5),
      range("PP:0B1", 50, 10),
      launch(51, 6),
      kernel("gemm_f0a", kComputeStream, 100, 100, 1),
      kernel("gemm_f0b", kComputeStream, 210, 90, 2),  // a 10 µs gap inside F0
      kernel("ncclDevKernel_AllToAll_RING_LL(ncclDevComm*)", kCommStream, 300, 400, 3,
             R"(,"Collective name":"all_to_all","In msg nelems":1024,"Out msg nelems":1024,)"
             R"("Group size":2,"dtype":"Float")"),
      kernel("gemm_f1", kComputeStream, 305, 295, 4),
      kernel("gemm_b0", kComputeStream, 700, 200, 5),
      kernel("gemm_b1", kComputeStream, 900, 200, 6),
  };
  std::string json = R"({"distributedInfo":{"rank":0,"world_size":1},"traceEvents":[)";
  for (std::size_t i = 0; i < e.size(); ++i)
    json += (i ? ",\n" : "\n") + e[i];
  return json + "]}";
}

struct Imported {
  ImportedRun run;
  RunTrace trace;
};

Imported importTwoStreams() {
  auto raw = readKinetoBuffer(twoStreamTrace(), "two_streams.json");
  EXPECT_TRUE(raw.ok()) << raw.error();
  std::vector<RawRankTrace> raws;
  raws.push_back(std::move(*raw));
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(raws), options);
  EXPECT_TRUE(run.ok()) << run.error();
  test::TempDir dir;
  auto store = TraceStore::open(dir.file("imported.sqlite"), TraceStore::Mode::ReadWrite);
  EXPECT_TRUE(store.ok()) << store.error();
  auto id = writeImportedRun(*store, *run);
  EXPECT_TRUE(id.ok()) << id.error();
  auto loaded = loadRun(*store, *id);
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  return {std::move(*run), std::move(*loaded)};
}

const OpRecord* findOp(const ImportedRun& run, OpKind kind, int microbatch) {
  for (const auto& op : run.ops)
    if (op.kind == kind && op.microbatch == microbatch) return &op;
  return nullptr;
}

constexpr std::int64_t us(std::int64_t v) {
  return v * 1000;
}

TEST(KinetoGpuProjection, EachOpTakesItsKernelsGpuTime) {
  const Imported imp = importTwoStreams();
  // The common origin is the earliest op: the first kernel at 100 µs.
  const auto at = [&](OpKind kind, int mb) {
    const OpRecord* op = findOp(imp.run, kind, mb);
    EXPECT_NE(op, nullptr) << opKindName(kind) << mb;
    return op ? std::pair{op->start_ns, op->end_ns} : std::pair<std::int64_t, std::int64_t>{};
  };
  EXPECT_EQ(at(OpKind::F, 0), std::pair(us(0), us(200)));    // kernels at [100, 300]
  EXPECT_EQ(at(OpKind::F, 1), std::pair(us(205), us(500)));  // [305, 600]
  EXPECT_EQ(at(OpKind::B, 0), std::pair(us(600), us(800)));
  EXPECT_EQ(at(OpKind::B, 1), std::pair(us(800), us(1000)));
  EXPECT_EQ(imp.run.stats.opsByKind[static_cast<int>(OpKind::F)], 2);
  EXPECT_EQ(imp.run.stats.opsByKind[static_cast<int>(OpKind::B)], 2);
  // The compute kernels are their ops' work, not ops of their own.
  for (const auto& op : imp.run.ops)
    EXPECT_NE(op.name.value_or("").rfind("gemm", 0), 0U) << *op.name;
}

TEST(KinetoGpuProjection, TheAllToAllIsACollectiveWithItsBytesOverlappingF1) {
  const Imported imp = importTwoStreams();
  const OpRecord* a2a = nullptr;
  for (const auto& op : imp.run.ops)
    if (op.kind == OpKind::A2A) a2a = &op;
  ASSERT_NE(a2a, nullptr) << formatImportSummary(imp.run);
  EXPECT_EQ(a2a->start_ns, us(200));
  EXPECT_EQ(a2a->end_ns, us(600));
  EXPECT_EQ(a2a->bytes, 1024 * 4);  // In msg nelems x sizeof(Float)
  // Two streams, two lanes: compute and collective, F1 drawn overlapping the all-to-all.
  const RankTrace& rank = imp.trace.ranks.at(0);
  EXPECT_EQ(rank.lane(Lane::Compute).size(), 4U);
  EXPECT_EQ(rank.lane(Lane::Collective).size(), 1U);
  const OpRecord* f1 = findOp(imp.run, OpKind::F, 1);
  ASSERT_NE(f1, nullptr);
  EXPECT_LT(f1->start_ns, a2a->end_ns);
  EXPECT_GT(f1->end_ns, a2a->start_ns);
}

TEST(KinetoGpuProjection, BusyIsCountedOnceAndTheCriticalPathIsTheStep) {
  const Imported imp = importTwoStreams();
  // Every kernel of the rank together covers [100, 1100] µs once, overlap or not.
  EXPECT_EQ(imp.run.coverage.busyNs, us(1000));
  const RunAnalysis analysis = analyzeRun(imp.trace);
  ASSERT_EQ(analysis.steps.size(), 1U);
  EXPECT_EQ(analysis.steps[0].span_ns(), us(1000));
  // Compute busy: F0 [0, 200] + F1 [205, 500] + B [600, 1000]; the 100 µs of the all-to-all
  // alone are idle, the 5 µs before F1 too.
  EXPECT_EQ(analysis.ranks.at(0).busy_ns, us(200 + 295 + 400));
  const StepGraph graph(imp.trace);
  const auto path = longestStepCriticalPath(graph);
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->lengthNs, analysis.steps[0].span_ns());
}

}  // namespace
}  // namespace ps::trace::import
