// Issue 12, case 11 and 14: what the import says about its own figures (compute coverage,
// residual skew), threads as ranks, cancelling recognition, and text from the file made safe.

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "trace/analysis/ConfigJson.h"
#include "trace/import/ImportPipeline.h"

namespace ps::trace::import {
namespace {

RawEvent event(RawRankTrace& raw, EventSource source, const std::string& name, std::int64_t start,
               std::int64_t end, std::int32_t track = 0) {
  RawEvent e;
  e.source = source;
  e.name = raw.intern(name);
  e.start_ns = start;
  e.end_ns = end;
  e.track = track;
  return e;
}

bool contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

// The DLRM shape: one recognised optimizer op per rank among a lot of unrecognised kernels.
RawRankTrace optimizerAmongKernels(int rank) {
  RawRankTrace raw;
  raw.file = "worker" + std::to_string(rank) + ".json";
  raw.rank = rank;
  for (int i = 0; i < 30; ++i)
    raw.events.push_back(event(raw, EventSource::Kernel, "embedding_kernel", i * 1'000'000,
                               i * 1'000'000 + 900'000));
  raw.events.push_back(
      event(raw, EventSource::GpuAnnotation, "Optimizer.step#SGD.step", 30'000'000, 31'000'000));
  return raw;
}

TEST(ImportPipelineFiguresTest, LowComputeCoverageIsStoredAndWarned) {
  std::vector<RawRankTrace> raws{optimizerAmongKernels(0), optimizerAmongKernels(1)};
  auto run = assembleImport(std::move(raws), ImportOptions{});
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->coverage.computeBusyNs, 2 * 1'000'000);
  EXPECT_EQ(run->coverage.busyNs, 2 * (30 * 900'000 + 1'000'000));
  EXPECT_TRUE(run->coverage.low());
  EXPECT_TRUE(contains(run->warnings,
                       "recognised compute covers 3.57 % of busy time: not a "
                       "pipeline trace?"))
      << formatImportSummary(*run);
  const auto import = jsonTopLevelObject(run->header.info.config_json, "import");
  ASSERT_TRUE(import) << run->header.info.config_json;
  EXPECT_EQ(jsonTopLevelInt(*import, "recognised_busy_ns"), 2'000'000);
  EXPECT_EQ(jsonTopLevelInt(*import, "raw_busy_ns"), 2 * 28'000'000);
  const std::string summary = formatImportSummary(*run);
  EXPECT_NE(summary.find("busy time 56.000 ms over all ranks, 3.57 % of it recognised compute"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("warning: recognised compute covers 3.57 %"), std::string::npos)
      << summary;
}

TEST(ImportPipelineFiguresTest, APipelineTraceHasNoCoverageWarning) {
  RawRankTrace raw;
  raw.file = "pp.json";
  raw.events.push_back(event(raw, EventSource::GpuAnnotation, "PP:0F0", 0, 1000));
  raw.events.push_back(event(raw, EventSource::Kernel, "gemm", 100, 900));  // inside F0
  raw.events.push_back(event(raw, EventSource::GpuAnnotation, "PP:0B0", 1000, 3000));
  raw.events.push_back(event(raw, EventSource::Kernel, "elementwise", 3000, 3500));
  auto run = assembleImport({raw}, ImportOptions{});
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->coverage.computeBusyNs, 3000);
  EXPECT_EQ(run->coverage.busyNs, 3500);
  EXPECT_FALSE(run->coverage.low());
  EXPECT_TRUE(run->warnings.empty()) << formatImportSummary(*run);
}

// Two ranks aligned by collectives whose ends disagree: the fit leaves a residual skew of half
// the step, which used to go by without a word.
TEST(ImportPipelineFiguresTest, ALargeResidualSkewIsWarned) {
  std::vector<RawRankTrace> raws(2);
  for (int r = 0; r < 2; ++r) {
    RawRankTrace& raw = raws[static_cast<std::size_t>(r)];
    raw.file = "rank" + std::to_string(r) + ".json";
    raw.rank = r;
    for (int step = 0; step < 3; ++step) {
      const std::int64_t t0 = step * 1'000'000;
      RawEvent f = event(raw, EventSource::GpuAnnotation, "forward-compute", t0, t0 + 400'000);
      f.step = step;
      raw.events.push_back(f);
      // Rank 1's collective ends drift: 0, +500 us, -500 us against rank 0's.
      const std::int64_t drift = r == 0 ? 0 : (step == 1 ? 500'000 : step == 2 ? -500'000 : 0);
      RawEvent ar = event(raw, EventSource::NcclKernel, "ncclDevKernel_AllReduce", t0 + 400'000,
                          t0 + 600'000 + drift);
      ar.comm = CommOp::AllReduce;
      ar.step = step;
      raw.events.push_back(ar);
    }
  }
  ImportOptions options;
  options.align = AlignMode::Collective;
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->alignment.residualNs, 500'000);
  EXPECT_EQ(run->stepSpanNs, 400'000);
  EXPECT_TRUE(contains(run->warnings,
                       "clock alignment (collective) leaves a residual skew of 500.000 µs, 125.00 "
                       "% of the 400.000 µs step: cross-rank timing (waits, bubble) is "
                       "unreliable; try another --align mode"))
      << formatImportSummary(*run);
}

TEST(ImportPipelineFiguresTest, ASmallResidualSkewIsNotWarned) {
  std::vector<RawRankTrace> raws(2);
  for (int r = 0; r < 2; ++r) {
    RawRankTrace& raw = raws[static_cast<std::size_t>(r)];
    raw.file = "rank" + std::to_string(r) + ".json";
    raw.rank = r;
    raw.events.push_back(event(raw, EventSource::GpuAnnotation, "forward-compute", 0, 1'000'000));
    RawEvent ar = event(raw, EventSource::NcclKernel, "ncclDevKernel_AllReduce", 1'000'000,
                        1'100'000 + r * 50'000);
    ar.comm = CommOp::AllReduce;
    raw.events.push_back(ar);
    RawEvent ar2 = ar;
    ar2.start_ns += 200'000;
    ar2.end_ns = 1'400'000;
    raw.events.push_back(ar2);
  }
  ImportOptions options;
  options.align = AlignMode::Collective;
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_GT(run->alignment.residualNs, 0);
  EXPECT_FALSE(contains(run->warnings, "residual skew")) << formatImportSummary(*run);
}

// PiPPy's visualiser: four stages on four threads of one process.
RawRankTrace fourStagesOnThreads() {
  RawRankTrace raw;
  raw.file = "pipe_visualized.json";
  for (int stage = 0; stage < 4; ++stage) {
    const std::int32_t track = 10 + stage;
    raw.threadIds[track] = 400 - stage * 100;  // thread ids in reverse track order
    for (int mb = 0; mb < 4; ++mb) {
      const std::int64_t start = (stage + mb) * 1000;
      raw.events.push_back(event(raw, EventSource::CpuAnnotation,
                                 "F_" + std::to_string(stage) + "," + std::to_string(mb), start,
                                 start + 1000, track));
    }
  }
  raw.events.push_back(event(raw, EventSource::CpuAnnotation, "main loop", 0, 9000, 99));
  return raw;
}

TEST(ImportPipelineFiguresTest, OneProcessStaysOneRankByDefaultAndThreadsAreOffered) {
  auto run = assembleImport({fourStagesOnThreads()}, ImportOptions{});
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->header.info.num_ranks, 1);
  EXPECT_TRUE(contains(run->notes,
                       "4 threads of this one process hold compute ops, which overlap "
                       "on its one rank: import with threads as ranks "
                       "(--threads-as-ranks) to make each thread a rank"))
      << formatImportSummary(*run);
}

TEST(ImportPipelineFiguresTest, WithoutThreadIdsThreadsAsRanksFollowsTheTracks) {
  RawRankTrace raw = fourStagesOnThreads();
  raw.threadIds.clear();
  ImportOptions options;
  options.threadsAsRanks = true;
  auto run = assembleImport({raw}, options);
  ASSERT_TRUE(run.ok()) << run.error();
  ASSERT_EQ(run->header.info.num_ranks, 4);
  for (const auto& op : run->ops)
    if (op.kind == OpKind::F) {
      EXPECT_EQ(op.rank, *op.stage) << *op.name;
    }
  EXPECT_EQ(run->files[0].rank.how, "track 10");
  EXPECT_TRUE(
      contains(run->notes, "each is a rank, in track order (the file gives no thread ids)"));
}

TEST(ImportPipelineFiguresTest, ThreadsAsRanksMakesEachComputeThreadARank) {
  ImportOptions options;
  options.threadsAsRanks = true;
  auto run = assembleImport({fourStagesOnThreads()}, options);
  ASSERT_TRUE(run.ok()) << run.error();
  ASSERT_EQ(run->header.info.num_ranks, 4);
  ASSERT_EQ(run->files.size(), 4U);
  // By thread id: thread 100 (stage 3) is rank 0.
  for (const auto& op : run->ops) {
    if (op.kind != OpKind::F) continue;
    EXPECT_EQ(op.rank, 3 - *op.stage) << *op.name;
  }
  EXPECT_EQ(run->files[0].rank.how, "thread 100");
  EXPECT_EQ(run->files[3].rank.how, "thread 400");
  // One rank's ops never overlap any more.
  for (int r = 0; r < 4; ++r) {
    std::int64_t lastEnd = INT64_MIN;
    for (const auto& op : run->ops)
      if (op.rank == r && op.kind == OpKind::F) {
        EXPECT_GE(op.start_ns, lastEnd);
        lastEnd = op.end_ns;
      }
  }
  const std::string summary = formatImportSummary(*run);
  EXPECT_NE(summary.find("note: threads as ranks: 4 threads of one process hold recognised "
                         "compute; each is a rank, by thread id (1 event of 1 other "
                         "thread or stream kept on rank 0)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("rank 0 <- pipe_visualized.json (rank 0 from thread 100)"),
            std::string::npos)
      << summary;
  EXPECT_NE(run->header.info.config_json.find("\"threads_as_ranks\":true"), std::string::npos);
}

TEST(ImportPipelineFiguresTest, ThreadsAsRanksWithOneComputeThreadSaysSo) {
  RawRankTrace raw;
  raw.file = "one.json";
  raw.events.push_back(event(raw, EventSource::CpuAnnotation, "F_0,0", 0, 10, 1));
  raw.events.push_back(event(raw, EventSource::CpuAnnotation, "idle", 0, 10, 2));
  ImportOptions options;
  options.threadsAsRanks = true;
  auto run = assembleImport({raw}, options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->header.info.num_ranks, 1);
  EXPECT_TRUE(contains(run->notes,
                       "threads as ranks: one thread holds recognised compute, "
                       "imported as one rank"));
}

TEST(ImportPipelineFiguresTest, RecognitionStopsWhenCancelled) {
  std::atomic<bool> cancel{true};
  ReadControl control;
  control.cancel = &cancel;
  auto run = assembleImport({fourStagesOnThreads()}, ImportOptions{}, control);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(), "import cancelled");
}

// Issue 12 case 14: labels and file names with terminal escapes, CR and 100k characters.
TEST(ImportPipelineFiguresTest, SummaryPrintsTextFromTheFileSafely) {
  RawRankTrace raw;
  raw.file = "evil\x1b]0;owned\x07.json";
  raw.events.push_back(event(raw, EventSource::CpuAnnotation, "PP:0F0", 0, 10));
  raw.events.push_back(event(raw, EventSource::CpuAnnotation, "\x1b[2J\rwiped", 20, 30));
  raw.events.push_back(event(raw, EventSource::CpuAnnotation, std::string(100'000, 'x'), 40, 50));
  raw.warnings.push_back("label \"\x1b[31mred\" skipped");
  auto run = assembleImport({raw}, ImportOptions{});
  ASSERT_TRUE(run.ok()) << run.error();
  const std::string summary = formatImportSummary(*run);
  for (char c : summary)
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
  EXPECT_NE(summary.find("\"\\x1b[2J\\rwiped\" x1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("evil\\x1b]0;owned\\x07.json"), std::string::npos) << summary;
  EXPECT_NE(summary.find("label \"\\x1b[31mred\" skipped"), std::string::npos) << summary;
  EXPECT_LT(summary.size(), 4000U);
}

}  // namespace
}  // namespace ps::trace::import
