// Imports that were quadratic (issue 30): --threads-as-ranks copied the whole trace per thread
// (item 13: 8000 threads 4 GB, 20000 aborted), and an nsys StringIds table without a primary key
// made every label lookup a scan of the table (item 18: 50k NVTX labels, 30 s). Both now finish
// quickly; these tests check the results at a size the old code could not handle in a test.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/FixtureSpec.h"
#include "tests/trace/import/NsysFixture.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEventKind;
using testing::FixtureRank;

// One process, `threads` threads, thread t running stage t's forward of micro-batch 0 and of
// micro-batch 1 ("PP:<t>F0", "PP:<t>F1"), plus a ProfilerStep over everything.
void writeThreads(const std::string& path, int threads) {
  std::ofstream out(path, std::ios::binary);
  out << "{\"traceEvents\": [\n"
      << R"({"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#5", "pid": 7, "tid": 1, )"
      << R"("ts": 1000, "dur": )" << (threads + 100) * 10 << "}";
  for (int t = 0; t < threads; ++t)
    for (int mb = 0; mb < 2; ++mb)
      out << ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"PP:" << t << "F" << mb
          << "\", \"pid\": 7, \"tid\": " << (100 + t) << ", \"ts\": " << 1000 + t * 10 + mb * 5
          << ", \"dur\": 4}";
  out << "\n]}\n";
}

TEST(ImportScale, TwentyThousandThreadsAsRanks) {
  test::TempDir dir;
  const std::string path = dir.file("threads.json");
  constexpr int kThreads = 20'000;
  writeThreads(path, kThreads);
  auto traces = readTraceFiles("kineto", {path});
  ASSERT_TRUE(traces.ok()) << traces.error();
  ImportOptions options;
  options.format = "kineto";
  options.threadsAsRanks = true;
  auto run = assembleImport(std::move(*traces), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->header.info.num_ranks, kThreads);
  ASSERT_EQ(run->ops.size(), 2U * kThreads);
  EXPECT_EQ(run->steps, 1);
  // Rank r is thread 100 + r and holds stage r's two forwards, in step 0 (ProfilerStep#5).
  for (std::size_t i = 0; i < run->ops.size(); ++i) {
    const OpRecord& op = run->ops[i];
    const int r = static_cast<int>(i / 2);
    ASSERT_EQ(op.rank, r);
    ASSERT_EQ(op.kind, OpKind::F);
    ASSERT_EQ(op.stage, r);
    ASSERT_EQ(op.microbatch, static_cast<int>(i % 2));
    ASSERT_EQ(op.step, 0);
    ASSERT_EQ(op.start_ns, (r * 10 + static_cast<int>(i % 2) * 5) * 1000);
  }
  EXPECT_EQ(run->files.front().rank.how, "thread 100");
  EXPECT_EQ(run->files.back().rank.how, "thread " + std::to_string(100 + kThreads - 1));

  // And it stores.
  auto store = TraceStore::open(dir.file("out.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto id = writeImportedRun(*store, *run);
  ASSERT_TRUE(id.ok()) << id.error();
}

// Labels from a StringIds table rewritten without its primary key (what CREATE TABLE AS SELECT
// leaves): each the right one.
TEST(ImportScale, NsysStringIdsWithoutPrimaryKey) {
  test::TempDir dir;
  constexpr int kLabels = 6000;
  FixtureRank rank;
  for (int i = 0; i < kLabels; ++i)
    rank.events.push_back({FixtureEventKind::Annotation,
                           "PP:" + std::to_string(i % 4) + "F" + std::to_string(i), i * 1000LL,
                           i * 1000LL + 500, -1, -1, 0});
  testing::NsysFixtureOptions options;
  options.registeredNames = true;
  const std::string path = dir.file("nopk.sqlite");
  ASSERT_TRUE(testing::writeNsysFixture(path, {rank}, options).ok());
  test::rawSql(path,
               "CREATE TABLE s2 AS SELECT id, value FROM StringIds; DROP TABLE StringIds; "
               "ALTER TABLE s2 RENAME TO StringIds;");

  auto traces = readTraceFiles("nsys", {path});
  ASSERT_TRUE(traces.ok()) << traces.error();
  ASSERT_EQ(traces->size(), 1U);
  const RawRankTrace& t = traces->front();
  std::set<std::string> labels;
  for (const auto& e : t.events)
    if (e.source == EventSource::CpuAnnotation) labels.insert(t.nameOf(e));
  ASSERT_EQ(labels.size(), static_cast<std::size_t>(kLabels));
  for (int i = 0; i < kLabels; ++i)
    ASSERT_EQ(labels.count("PP:" + std::to_string(i % 4) + "F" + std::to_string(i)), 1U) << i;
  for (const auto& w : t.warnings)
    EXPECT_EQ(w.find("StringIds"), std::string::npos) << w;
}

}  // namespace
}  // namespace ps::trace::import
