// The cuda backend's first recorded runs on a GPU (issue 32): scripts/gpu-check's demo on one
// NVIDIA H200 (driver 580.159.04, 2026-12-04), 1F1B (run 1) and ZB-H1 (run 2), p=4, m=8, 4 steps,
// transformer H=512 S=256 B=4, the 4 ranks sharing the GPU. tests/fixtures/cuda/h200-1f1b-p4.sqlite
// is that file as written there. These checks keep it loading as the store and the analyses
// change: its ops (event-timed, stream-ordered), transfers, memory, loss and the NVTX names its
// ops were recorded under (DESIGN §6: PP:{stage}{KIND}{mb}, which the nsys importer reads back).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/common/TestPaths.h"
#include "trace/import/OpRecognizer.h"
#include "trace/store/TraceReader.h"

namespace ps::trace {
namespace {

constexpr int kRanks = 4, kMicrobatches = 8, kSteps = 4;
constexpr std::int64_t kActivationBytes = 4LL * 256 * 512 * 4;  // B·S·H floats

RunTrace loadFixtureRun(std::int64_t runId) {
  auto run = loadRunFromFile(test::sourcePath("tests/fixtures/cuda/h200-1f1b-p4.sqlite"), runId);
  if (!run) ADD_FAILURE() << run.error();
  return run ? std::move(*run) : RunTrace{};
}

TEST(CudaH200Fixture, TheRunIsACompleteCudaRunOnTheH200) {
  const RunTrace run = loadFixtureRun(1);
  EXPECT_EQ(run.info.source, "cuda");
  EXPECT_EQ(run.info.status, RunStatus::Complete);
  EXPECT_EQ(run.info.schedule.value_or(""), "1f1b");
  EXPECT_EQ(run.info.num_microbatches.value_or(0), kMicrobatches);
  ASSERT_EQ(run.ranks.size(), static_cast<std::size_t>(kRanks));
  EXPECT_TRUE(run.warnings.empty()) << run.warnings.front();
  for (const RankTrace& rank : run.ranks) {
    EXPECT_EQ(rank.info.device.value_or(""), "NVIDIA H200");
    EXPECT_GT(rank.info.memory_capacity_bytes.value_or(0), 130LL << 30);  // 139.8 GiB
  }
}

TEST(CudaH200Fixture, EveryRankRanItsOpsInStreamOrder) {
  const RunTrace run = loadFixtureRun(1);
  for (const RankTrace& rank : run.ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank.info.rank));
    const OpColumns& compute = rank.lane(Lane::Compute);
    std::map<OpKind, int> count;
    for (std::size_t i = 0; i < compute.size(); ++i) {
      ++count[compute.kind[i]];
      EXPECT_GE(compute.end[i], compute.start[i]);
      // One compute stream per rank, timed by CUDA events: no op starts before the last ended.
      if (i > 0) EXPECT_GE(compute.start[i], compute.end[i - 1]) << "op " << i;
    }
    EXPECT_EQ(count[OpKind::F], kMicrobatches * kSteps);
    EXPECT_EQ(count[OpKind::B], kMicrobatches * kSteps);
    EXPECT_EQ(count[OpKind::OPT], kSteps);
    const OpColumns& sends = rank.lane(Lane::Send);
    const int expectedSends = (rank.info.rank < kRanks - 1 ? 1 : 0) + (rank.info.rank > 0 ? 1 : 0);
    EXPECT_EQ(sends.size(), static_cast<std::size_t>(expectedSends * kMicrobatches * kSteps));
    for (std::size_t i = 0; i < sends.size(); ++i)
      EXPECT_EQ(sends.bytes[i], kActivationBytes) << "send " << i;
  }
}

TEST(CudaH200Fixture, MemoryAndLossWereRecorded) {
  const RunTrace run = loadFixtureRun(1);
  for (const RankTrace& rank : run.ranks) {
    ASSERT_FALSE(rank.memory.t.empty()) << "rank " << rank.info.rank;
    const std::int64_t peak = *std::max_element(rank.memory.bytes.begin(), rank.memory.bytes.end());
    EXPECT_GT(peak, 64LL << 20) << "rank " << rank.info.rank;  // weights, state, activations
    EXPECT_LT(peak, 1LL << 30) << "rank " << rank.info.rank;
  }
  std::map<int, double> loss;
  for (const MetricRecord& m : run.metrics)
    if (m.name == "loss") loss[m.step] = m.value;
  ASSERT_EQ(loss.size(), static_cast<std::size_t>(kSteps));
  EXPECT_LT(loss.rbegin()->second, loss.begin()->second) << "the model learned";
}

TEST(CudaH200Fixture, EveryOpHasTheNvtxNameTheImporterReadsBack) {
  // Run 1 (1F1B): per rank 32 F and 32 B, 6 links × 32 sends and receives; run 2 (ZB-H1) adds W.
  for (const auto& [runId, ops] : {std::pair{1, 640u}, std::pair{2, 768u}}) {
    const RunTrace run = loadFixtureRun(runId);
    std::size_t named = 0;
    for (const RankTrace& rank : run.ranks) {
      for (const OpColumns& lane : rank.lanes) {
        for (std::size_t i = 0; i < lane.size(); ++i) {
          if (lane.kind[i] == OpKind::OPT) continue;  // a step's optimizer range has no stage
          const std::string label = "PP:" + std::to_string(lane.stage[i]) +
                                    std::string(opKindName(lane.kind[i])) +
                                    std::to_string(lane.microbatch[i]);
          const auto op = import::recognizeTorchPipelining(label);
          ASSERT_TRUE(op.has_value()) << label;
          EXPECT_EQ(op->kind, lane.kind[i]) << label;
          EXPECT_EQ(op->stage, lane.stage[i]) << label;
          EXPECT_EQ(op->microbatch, lane.microbatch[i]) << label;
          ++named;
        }
      }
    }
    EXPECT_EQ(named, ops) << "run " << runId;
  }
}

}  // namespace
}  // namespace ps::trace
