// Golden diff tests of the importers (issue 12): a small fixture file of each profile format ->
// the registry's reader -> the shared stages -> a run in a store -> its text dump, compared with
// tests/trace/import/golden/<format>_gpipe.txt. A change in what any stage makes of the same
// file shows as a diff here. PIPESCOPE_UPDATE_GOLDEN=1 rewrites the files (RunDump.h). The
// torch-csv golden runs through the CLI (tests/app/cli/CliImportTest.cpp), as trace/ cannot
// simulate.

#include <gtest/gtest.h>

#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/import/FixtureSpec.h"
#include "tests/trace/import/KinetoFixture.h"
#include "tests/trace/import/NsysFixture.h"
#include "tests/trace/import/RunDump.h"
#include "trace/Synthetic.h"
#include "trace/import/ImportFormats.h"
#include "trace/import/ImportName.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEventKind;
using testing::FixtureRank;

std::string goldenPath(const std::string& name) {
  return test::sourcePath("tests/trace/import/golden/" + name);
}

// GPipe p = 2, m = 2 (F = 10 µs, B = 20 µs), torch-pipelining labels over one kernel each, NCCL
// send/recv kernels, one profiler step, a few memory samples; rank 1's clock is 7 µs ahead.
std::vector<FixtureRank> smallGpipe() {
  SyntheticGpipe g;
  g.ranks = 2;
  g.microbatches = 2;
  g.fwd_ns = 10'000;
  std::vector<FixtureRank> ranks(2);
  for (int r = 0; r < 2; ++r) {
    ranks[r].rank = r;
    ranks[r].worldSize = 2;
    ranks[r].memory = {{0, 1 << 20}, {15'000, 3 << 20}, {60'000, 1 << 20}};
    ranks[r].profilerSteps = {{0, 100'000}};
  }
  ranks[1].clockSkewNs = 7'000;
  for (const auto& op : syntheticGpipeStep(g, 0).ops) {
    const bool comm = !isCompute(op.kind);
    const std::int64_t end = comm ? op.start_ns + 1000 : op.end_ns;
    auto& events = ranks[op.rank].events;
    events.push_back({FixtureEventKind::Annotation,
                      "PP:" + std::to_string(*op.stage) + std::string(opKindName(op.kind)) +
                          std::to_string(*op.microbatch),
                      op.start_ns, end, -1, -1, 0});
    events.push_back({comm ? FixtureEventKind::Nccl : FixtureEventKind::Kernel,
                      comm ? "ncclDevKernel_SendRecv(args)" : "sm90_gemm", op.start_ns, end,
                      comm ? *op.peer_rank : -1, op.bytes.value_or(-1), 0});
  }
  return ranks;
}

// The whole import as pipescope-cli import does it, through the registry's entry.
void importAndCompare(const std::string& format, const std::vector<std::string>& files,
                      const test::TempDir& dir, const std::string& golden) {
  ASSERT_NE(findImportFormat(format), nullptr);
  auto raws = readTraceFiles(format, files);
  ASSERT_TRUE(raws.ok()) << raws.error();
  ImportOptions options;
  options.format = format;
  options.name = defaultImportName(format, files);
  auto run = assembleImport(std::move(*raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  auto store = TraceStore::open(dir.file("out.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto id = writeImportedRun(*store, *run);
  ASSERT_TRUE(id.ok()) << id.error();
  auto loaded = loadRun(*store, *id);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  test::expectGolden(goldenPath(golden), test::dumpRun(*loaded, dir.path().string()));
}

TEST(ImportGoldenTest, KinetoFilesOfTwoRanks) {
  test::TempDir dir;
  std::vector<std::string> files;
  for (const auto& rank : smallGpipe()) {
    files.push_back(dir.file("rank" + std::to_string(rank.rank) + ".json"));
    ASSERT_TRUE(testing::writeKinetoFixture(files.back(), rank, false).ok());
  }
  importAndCompare("kineto", files, dir, "kineto_gpipe.txt");
}

TEST(ImportGoldenTest, KinetoGzipFilesImportAsThePlainOnes) {
  test::TempDir dir;
  std::vector<std::string> files;
  for (const auto& rank : smallGpipe()) {
    files.push_back(dir.file("rank" + std::to_string(rank.rank) + ".json"));
    testing::KinetoFixtureOptions options;
    options.gzip = true;
    ASSERT_TRUE(testing::writeKinetoFixture(files.back(), rank, options).ok());
  }
  // Same names as the plain files: the run must be the same byte for byte.
  importAndCompare("kineto", files, dir, "kineto_gpipe.txt");
}

TEST(ImportGoldenTest, NsysExportOfTwoRanks) {
  test::TempDir dir;
  const std::string path = dir.file("gpipe.sqlite");
  ASSERT_TRUE(testing::writeNsysFixture(path, smallGpipe()).ok());
  importAndCompare("nsys", {path}, dir, "nsys_gpipe.txt");
}

}  // namespace
}  // namespace ps::trace::import
