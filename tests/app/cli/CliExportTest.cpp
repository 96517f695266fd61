// pipescope-cli export torch-csv (issue 12, case 10): a round trip keeps the schedule, overlapped
// pairs included (DualPipeV's "(0F7;7I0)OVERLAP_F_B" was written as two cells and the re-imported
// run ran faster), and a run with no pipeline ops exports nothing and says so.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

// Links slow enough that making an overlapped pair wait for both halves shows in the step time.
const std::vector<std::string> kCosts = {"--link-gbps", "100", "--act-mb", "16"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::int64_t stepTimeNs(const std::string& db, const std::string& run) {
  const auto r = cli({"report", db, "--run", run, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(r.out).get(doc) != simdjson::SUCCESS) {
    ADD_FAILURE() << r.out;
    return -1;
  }
  std::int64_t ns = -1;
  EXPECT_EQ(doc["step_time_ns"].get(ns), simdjson::SUCCESS) << r.out;
  return ns;
}

TEST(CliExport, DualPipeVRoundTripKeepsOverlappedPairsAndTheStepTime) {
  TempDir dir;
  const std::string db = dir.file("dp.sqlite");
  const std::string csv = dir.file("dp.csv");
  const std::string again = dir.file("again.csv");
  const auto sim = cli(
      with({"sim", "--schedule", "dualpipe-v", "--stages", "4", "--microbatches", "8", "--db", db},
           kCosts));
  ASSERT_EQ(sim.exit_code, 0) << sim.err;

  const auto exported = cli({"export", "torch-csv", db, "--run", "1", "--out", csv});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(exported.out, "wrote 192 actions on 4 ranks (6 overlapped pairs) to " + csv + "\n");
  // The cells of the plan, pairs and all: the schedule's own torch form.
  const std::string text = test::readFile(csv);
  EXPECT_THAT(text, HasSubstr("7F0,(0F7;7I0)OVERLAP_F_B,7W0"));
  EXPECT_EQ(text,
            test::readFile(test::sourcePath("tests/runtime/golden/schedule_dualpipe-v_p4_m8.csv")));

  const auto imported = cli(with({"import", "torch-csv", csv, "--db", db}, kCosts));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  // Before: 50.376 ms simulated, 48.192 ms re-imported (the pairs no longer waited for both).
  EXPECT_EQ(stepTimeNs(db, "2"), stepTimeNs(db, "1"));
  EXPECT_EQ(stepTimeNs(db, "1"), 50'376'195);

  // The imported run exports the same cells again.
  const auto second = cli({"export", "torch-csv", db, "--run", "2", "--out", again});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(test::readFile(again), text);
}

TEST(CliExport, TorchCsvOfARunWithNoPipelineOpsExitsTwoAndWritesNothing) {
  TempDir dir;
  const std::string db = dir.file("kernels.sqlite");
  const std::string out = dir.file("out.csv");
  // What an nsys import without NVTX stage ranges holds: kernels with no stage or micro-batch.
  trace::RunHeader header = test::simpleHeader(2, "kernels only");
  header.info.source = "nsys";
  trace::TraceBatch batch;
  for (int r = 0; r < 2; ++r) {
    trace::OpRecord op = test::compute(r, trace::OpKind::OTHER, 0, 100, 200);
    op.stage.reset();
    op.microbatch.reset();
    op.name = "gemm";
    batch.ops.push_back(op);
    trace::OpRecord f = test::compute(r, trace::OpKind::F, 0, 300, 400);
    f.stage.reset();  // a forward range with no stage
    batch.ops.push_back(f);
  }
  const auto id = test::writeRun(db, header, batch);
  const std::string before = test::readFile(db);

  const auto r = cli({"export", "torch-csv", db, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipescope-cli: error: run " + std::to_string(id) +
                       " \"kernels only\" has no pipeline ops (F, B, I or W with a stage and a "
                       "micro-batch): nothing to export as torch-csv; " +
                       out + " not written\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(test::readFile(db), before) << "export changed the trace file";
}

}  // namespace
}  // namespace ps
