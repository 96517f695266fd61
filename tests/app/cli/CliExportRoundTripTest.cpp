// export torch-csv writes only what PipeScope reads back (issue 30, item 19): an imported run
// whose one rank holds the same action twice (two threads of one process running the same
// stage) was written as a CSV that `import torch-csv` then refused.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

std::string annotation(const std::string& name, int tid, int ts) {
  return R"({"ph": "X", "cat": "user_annotation", "name": ")" + name + R"(", "pid": 1, "tid": )" +
         std::to_string(tid) + R"(, "ts": )" + std::to_string(ts) + R"(, "dur": 5})";
}

TEST(CliExportRoundTrip, DuplicateThreadsAreRefusedOrReadBack) {
  TempDir dir;
  const std::string trace = dir.file("dup.json"), db = dir.file("dup.sqlite");
  // Two threads each running stage 0's forward and backward of micro-batch 0.
  test::writeFile(trace, "{\"traceEvents\": [" + annotation("PP:0F0", 2, 10) + ", " +
                             annotation("PP:0B0", 2, 20) + ", " + annotation("PP:0F0", 3, 12) +
                             ", " + annotation("PP:0B0", 3, 22) + "]}");
  auto r = cli({"import", "kineto", trace, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const std::string csv = dir.file("dup.csv");
  r = cli({"export", "torch-csv", db, "--out", csv});
  if (r.exit_code == 0) {
    const auto back = cli({"import", "torch-csv", csv, "--db", dir.file("back.sqlite")});
    EXPECT_EQ(back.exit_code, 0) << "export wrote a file its import refuses: " << back.err;
  } else {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("not written"));
    EXPECT_THAT(r.err, HasSubstr("0F0"));
    EXPECT_FALSE(std::filesystem::exists(csv));
  }
}

TEST(CliExportRoundTrip, ASimulatedRunStillRoundTrips) {
  TempDir dir;
  const std::string db = dir.file("sim.sqlite"), csv = dir.file("sim.csv");
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "4", "--microbatches", "8", "--db", db})
                .exit_code,
            0);
  auto r = cli({"export", "torch-csv", db, "--out", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli({"import", "torch-csv", csv, "--db", dir.file("back.sqlite")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace ps
