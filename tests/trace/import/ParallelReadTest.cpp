// readTraceFiles reads the files of a multi-rank import on several threads (issue 31 §5): the
// result must be exactly what a read of one file after another gives (traces in file order, the
// same run once assembled), the error reported the one of the first failing file in file order
// (not the first to fail in time), and the cancel flag must still stop every read.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/FixtureSpec.h"
#include "tests/trace/import/KinetoFixture.h"
#include "trace/Synthetic.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEventKind;
using testing::FixtureRank;

constexpr int kRanks = 4;

// A 4-rank GPipe run of `steps` steps with skewed clocks, one Kineto file per rank (a few MB each
// with the fixture's noise, so a read takes many windows and reports progress many times).
std::vector<std::string> writeRankFiles(const test::TempDir& dir, int steps) {
  SyntheticGpipe g;
  g.fwd_ns = 100'000;
  std::vector<FixtureRank> ranks(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    ranks[r].rank = r;
    ranks[r].worldSize = kRanks;
    ranks[r].clockSkewNs = r * 17'000 - 20'000;
  }
  const std::int64_t span = syntheticGpipeSpan(g);
  for (int s = 0; s < steps; ++s) {
    for (auto& rank : ranks)
      rank.profilerSteps.emplace_back(s * span, (s + 1) * span);
    for (const auto& op : syntheticGpipeStep(g, s).ops) {
      auto& events = ranks[op.rank].events;
      const bool comm = !isCompute(op.kind);
      const std::int64_t end = comm ? op.start_ns + 1000 : op.end_ns;
      events.push_back({FixtureEventKind::Annotation,
                        "PP:" + std::to_string(*op.stage) + std::string(opKindName(op.kind)) +
                            std::to_string(*op.microbatch),
                        op.start_ns, end, -1, -1, s});
      if (comm)
        events.push_back({FixtureEventKind::Nccl,
                          "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage)", op.start_ns, end,
                          *op.peer_rank, op.bytes.value_or(-1), s});
      else
        events.push_back({FixtureEventKind::Kernel, "sm90_xmma_gemm", op.start_ns, end, -1, -1, s});
    }
  }
  std::vector<std::string> files;
  for (const auto& rank : ranks) {
    files.push_back(dir.file("worker" + std::to_string(rank.rank) + ".pt.trace.json"));
    EXPECT_TRUE(testing::writeKinetoFixture(files.back(), rank, false).ok());
  }
  return files;
}

void expectSameTrace(const RawRankTrace& a, const RawRankTrace& b) {
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.wallClockOffsetNs, b.wallClockOffsetNs);
  EXPECT_EQ(a.names, b.names);
  ASSERT_EQ(a.events.size(), b.events.size()) << a.file;
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    const RawEvent& x = a.events[i];
    const RawEvent& y = b.events[i];
    ASSERT_TRUE(x.start_ns == y.start_ns && x.end_ns == y.end_ns && x.name == y.name &&
                x.source == y.source && x.comm == y.comm && x.track == y.track &&
                x.peer == y.peer && x.bytes == y.bytes && x.depth == y.depth && x.step == y.step &&
                x.stated == y.stated)
        << a.file << " event " << i;
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  ASSERT_EQ(a.memory.size(), b.memory.size());
  EXPECT_EQ(a.warnings, b.warnings);
}

ImportedRun assemble(std::vector<RawRankTrace> traces) {
  ImportOptions options;
  options.format = "kineto";
  auto run = assembleImport(std::move(traces), options);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : ImportedRun{};
}

TEST(ParallelReadTest, FilesAreReadOnSeveralThreadsAtOnce) {
  test::TempDir dir;
  const auto files = writeRankFiles(dir, 12);
  std::mutex mutex;
  std::set<std::thread::id> readers;
  ReadControl control;
  control.progress = [&](double) {
    std::lock_guard lock(mutex);
    readers.insert(std::this_thread::get_id());
  };
  auto traces = readTraceFiles("kineto", files, control, kRanks);
  ASSERT_TRUE(traces.ok()) << traces.error();
  EXPECT_EQ(traces->size(), static_cast<std::size_t>(kRanks));
  // Progress comes from the thread reading the file: more than one thread read.
  EXPECT_GE(readers.size(), 2U);
  EXPECT_EQ(readThreads(0, 1), 1U);  // never more threads than files
  EXPECT_EQ(readThreads(8, 3), 3U);
  EXPECT_GE(readThreads(0, 64), 1U);
}

TEST(ParallelReadTest, ManyThreadsGiveExactlyTheTracesAndRunOfOne) {
  test::TempDir dir;
  const auto files = writeRankFiles(dir, 12);
  auto serial = readTraceFiles("kineto", files, {}, 1);
  ASSERT_TRUE(serial.ok()) << serial.error();
  for (const unsigned threads : {2u, 3u, 4u}) {
    SCOPED_TRACE(threads);
    auto parallel = readTraceFiles("kineto", files, {}, threads);
    ASSERT_TRUE(parallel.ok()) << parallel.error();
    ASSERT_EQ(parallel->size(), serial->size());
    for (std::size_t i = 0; i < serial->size(); ++i)
      expectSameTrace((*serial)[i], (*parallel)[i]);

    const ImportedRun a = assemble(*serial);
    const ImportedRun b = assemble(std::move(*parallel));
    ASSERT_EQ(a.ops.size(), b.ops.size());
    EXPECT_EQ(a.stats.opsByKind[static_cast<int>(OpKind::F)], 12 * kRanks * 8);
    for (std::size_t i = 0; i < a.ops.size(); ++i) {
      const OpRecord& x = a.ops[i];
      const OpRecord& y = b.ops[i];
      ASSERT_TRUE(x.rank == y.rank && x.kind == y.kind && x.stage == y.stage &&
                  x.microbatch == y.microbatch && x.step == y.step && x.start_ns == y.start_ns &&
                  x.end_ns == y.end_ns && x.peer_rank == y.peer_rank && x.bytes == y.bytes &&
                  x.name == y.name)
          << "op " << i;
    }
    ASSERT_EQ(a.files.size(), b.files.size());
    for (std::size_t r = 0; r < a.files.size(); ++r) {
      EXPECT_EQ(a.files[r].file, b.files[r].file);
      EXPECT_EQ(a.files[r].rank.storedRank, b.files[r].rank.storedRank);
    }
    EXPECT_EQ(a.alignment.offsetNs, b.alignment.offsetNs);
  }
}

TEST(ParallelReadTest, TheFirstFailingFileInOrderIsReportedNotTheFirstToFail) {
  test::TempDir dir;
  auto files = writeRankFiles(dir, 12);
  // File 1 fails at its very end (truncated: read whole first); file 2 fails at its first byte,
  // long before. A read of one file after another stops at file 1, and so must this one.
  const std::string whole = test::readFile(files[1]);
  test::writeFile(files[1], whole.substr(0, whole.size() - 40));
  test::writeFile(files[2], "<html>not a trace</html>");
  auto serial = readTraceFiles("kineto", files, {}, 1);
  ASSERT_FALSE(serial.ok());
  EXPECT_EQ(serial.error().rfind(files[1] + ": malformed JSON", 0), 0U) << serial.error();
  for (const unsigned threads : {2u, 4u}) {
    auto parallel = readTraceFiles("kineto", files, {}, threads);
    ASSERT_FALSE(parallel.ok());
    EXPECT_EQ(parallel.error(), serial.error()) << threads << " threads";
  }
  // And a failing first file is reported as it was.
  auto first = readTraceFiles("kineto", {files[2], files[0]}, {}, 2);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().rfind(files[2] + ": not a Kineto trace", 0), 0U) << first.error();
}

TEST(ParallelReadTest, CancelStopsEveryRead) {
  test::TempDir dir;
  const auto files = writeRankFiles(dir, 12);
  for (const unsigned threads : {1u, 4u}) {
    std::atomic<bool> cancel{false};
    std::atomic<int> calls{0};
    ReadControl control;
    control.cancel = &cancel;
    // Cancelled at the first progress report: no file is whole yet (each reports at 1 %, 2 %..).
    control.progress = [&](double) {
      ++calls;
      cancel = true;
    };
    auto r = readTraceFiles("kineto", files, control, threads);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), files[0] + ": import cancelled") << threads << " threads";
    EXPECT_GE(calls.load(), 1);
  }
}

}  // namespace
}  // namespace ps::trace::import
