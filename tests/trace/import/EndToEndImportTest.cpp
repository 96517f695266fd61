// Whole imports from files the fixture writers produce: a 4-rank GPipe run (p = 4, m = 8,
// F = t, B = 2t) with torch-pipelining labels, NCCL send/recv kernels and planted clock skews,
// read by the real readers, aligned, written and measured. The bubble must come back as the
// closed form (p-1)/(m+p-1) = 3/11 and the fitted offsets within 1 µs of the planted skews.

#include <gtest/gtest.h>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/FixtureSpec.h"
#include "tests/trace/import/KinetoFixture.h"
#include "tests/trace/import/NsysFixture.h"
#include "trace/Synthetic.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/kineto/KinetoReader.h"
#include "trace/import/nsys/NsysReader.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEvent;
using testing::FixtureEventKind;
using testing::FixtureRank;

const std::vector<std::int64_t> kSkews{0, 37'000, -12'345, 250'000};

// Each op is a labelled range with one kernel doing its work; transfers take 1 µs on both sides.
std::vector<FixtureRank> gpipeFixture() {
  SyntheticGpipe g;
  g.fwd_ns = 100'000;
  std::vector<FixtureRank> ranks(4);
  for (int r = 0; r < 4; ++r) {
    ranks[r].rank = r;
    ranks[r].worldSize = 4;
    ranks[r].clockSkewNs = kSkews[r];
  }
  for (const auto& op : syntheticGpipeStep(g, 0).ops) {
    auto& events = ranks[op.rank].events;
    const bool comm = !isCompute(op.kind);
    const std::int64_t end = comm ? op.start_ns + 1000 : op.end_ns;
    const std::string label = "PP:" + std::to_string(*op.stage) + std::string(opKindName(op.kind)) +
                              std::to_string(*op.microbatch);
    events.push_back({FixtureEventKind::Annotation, label, op.start_ns, end, -1, -1, 0});
    if (comm)
      events.push_back({FixtureEventKind::Nccl, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage)",
                        op.start_ns, end, *op.peer_rank, op.bytes.value_or(-1), 0});
    else
      events.push_back({FixtureEventKind::Kernel, "sm90_xmma_gemm", op.start_ns, end, -1, -1, 0});
  }
  return ranks;
}

void expectAlignedGpipe(const ImportedRun& run) {
  EXPECT_EQ(run.alignment.used, AlignMode::P2p);
  for (int r = 0; r < 4; ++r)
    EXPECT_NEAR(run.alignment.offsetNs[r], -kSkews[r], 1000) << "rank " << r;
  EXPECT_EQ(run.alignment.causalityViolations, 0);
  EXPECT_EQ(run.stats.opsByKind[static_cast<int>(OpKind::F)], 32);
  EXPECT_EQ(run.stats.opsByKind[static_cast<int>(OpKind::B)], 32);
  EXPECT_EQ(run.stats.opsByKind[static_cast<int>(OpKind::OTHER)], 0);  // kernels are inside ops

  test::TempDir dir;
  auto store = TraceStore::open(dir.file("imported.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto id = writeImportedRun(*store, run);
  ASSERT_TRUE(id.ok()) << id.error();
  auto loaded = loadRun(*store, *id);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const auto analysis = analyzeRun(*loaded);
  ASSERT_TRUE(analysis.bubble_ratio);
  EXPECT_NEAR(*analysis.bubble_ratio, 3.0 / 11.0, 1e-4);
  ASSERT_EQ(analysis.links.size(), 6U);  // 0<->1, 1<->2, 2<->3 both ways
}

TEST(EndToEndImportTest, NsysExportOfFourRanksAlignsAndGivesTheClosedFormBubble) {
  test::TempDir dir;
  const std::string path = dir.file("gpipe.sqlite");
  ASSERT_TRUE(testing::writeNsysFixture(path, gpipeFixture()).ok());
  auto raws = readNsysFile(path);
  ASSERT_TRUE(raws.ok()) << raws.error();
  ASSERT_EQ(raws->size(), 4U);
  ImportOptions options;
  options.format = "nsys";
  auto run = assembleImport(std::move(*raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->files[3].rank.how, "process order");
  expectAlignedGpipe(*run);
}

}  // namespace
}  // namespace ps::trace::import

namespace ps::trace::import {
namespace {

TEST(EndToEndImportTest, KinetoFilesOfFourRanksAlignAndGiveTheClosedFormBubble) {
  test::TempDir dir;
  std::vector<std::string> files;
  for (const auto& rank : gpipeFixture()) {
    // One .json.gz per rank, named like torch's trace handler; ranks come from distributedInfo.
    files.push_back(dir.file("worker" + std::to_string(rank.rank) + ".pt.trace.json.gz"));
    ASSERT_TRUE(testing::writeKinetoFixture(files.back(), rank, true).ok());
  }
  std::vector<RawRankTrace> raws;
  for (const auto& f : files) {
    auto raw = readKinetoFile(f);
    ASSERT_TRUE(raw.ok()) << raw.error();
    raws.push_back(std::move(*raw));
  }
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->files[2].rank.how, "metadata");
  expectAlignedGpipe(*run);
}

TEST(EndToEndImportTest, WallClockAlignmentTrustsTheSkewedClocks) {
  // Kineto's baseTimeNanoseconds is the node's own (skewed) clock: --align wall keeps the skew,
  // which is exactly why p2p alignment exists.
  test::TempDir dir;
  std::vector<RawRankTrace> raws;
  for (const auto& rank : gpipeFixture()) {
    const std::string path = dir.file("rank" + std::to_string(rank.rank) + ".json");
    ASSERT_TRUE(testing::writeKinetoFixture(path, rank, false).ok());
    auto raw = readKinetoFile(path);
    ASSERT_TRUE(raw.ok()) << raw.error();
    raws.push_back(std::move(*raw));
  }
  ImportOptions options;
  options.format = "kineto";
  options.align = AlignMode::Wall;
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(run->alignment.offsetNs[r], 0) << "rank " << r;
}

}  // namespace
}  // namespace ps::trace::import
