// pipescope-cli sim / schedules / export torch-csv end to end.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::TempDir;
using ::testing::HasSubstr;

using test::cli;

double jsonDouble(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  double v = -1;
  EXPECT_EQ(doc[key].get(v), simdjson::SUCCESS) << key << " in " << json;
  return v;
}

TEST(CliSim, OneFOneBGivesTheClosedFormBubble) {
  TempDir dir;
  const std::string db = dir.file("sim.sqlite");
  const auto sim =
      cli({"sim", "--schedule", "1f1b", "--stages", "4", "--microbatches", "8", "--db", db});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr("run 1: 1f1b p=4 m=8"));
  EXPECT_THAT(sim.out, HasSubstr("bubble 27.27 %"));
  const auto report = cli({"report", db, "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NEAR(jsonDouble(report.out, "bubble_ratio"), 3.0 / 11.0, 1e-12);
}

TEST(CliSim, ListsEverySchedule) {
  const auto r = cli({"schedules"});
  ASSERT_EQ(r.exit_code, 0);
  for (const char* name :
       {"gpipe", "1f1b", "interleaved-1f1b", "looped-bfs", "zb-h1", "zb-h2", "zb-v", "chimera",
        "dualpipe-v", "bitpipe", "pipedream", "pipedream-2bw"})
    EXPECT_THAT(r.out, HasSubstr(name));
}

TEST(CliSim, BadInputExitsTwoAndWritesNothing) {
  TempDir dir;
  const std::string db = dir.file("bad.sqlite");
  const std::string badCosts = dir.file("costs.json");
  test::writeFile(badCosts, "{\"layers\": [ {\"fwd_us\": 1,, } ]}");
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--schedule", "nope"}, "unknown schedule 'nope' (valid: gpipe, 1f1b"},
      {{"--schedule", "interleaved-1f1b", "--stages", "4", "--microbatches", "6", "--chunks", "2"},
       "m to be a multiple of p"},
      {{"--schedule", "1f1b", "--stages", "0"}, "--stages"},
      {{"--schedule", "1f1b", "--fwd-us", "-1"}, "--fwd-us must be positive"},
      {{"--schedule", "1f1b", "--stages", "4", "--layers", "2"}, "fewer than the plan's 4 stages"},
      {{"--schedule", "1f1b", "--stages", "4", "--layers", "8", "--boundaries", "3,2,5"},
       "--boundaries"},
      {{"--costs", badCosts}, badCosts},
      {{"--schedule-file", test::sourcePath("tests/runtime/golden/deadlock_p2.csv")},
       "deadlock under in-order execution: rank"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"sim", "--db", db};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << c.expected << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.expected));
    EXPECT_FALSE(std::filesystem::exists(db)) << "nothing may be written for: " << c.expected;
  }
}

TEST(CliSim, ExportedTorchCsvSimulatesToTheSameStep) {
  TempDir dir;
  const std::string db = dir.file("rt.sqlite"), csv = dir.file("zb.csv");
  const auto sim =
      cli({"sim", "--schedule", "zb-h1", "--stages", "4", "--microbatches", "8", "--db", db});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto exported = cli({"export", "torch-csv", db, "--out", csv});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto again = cli({"sim", "--schedule-file", csv, "--db", db});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto first = cli({"report", db, "--json", "--run", "1"});
  const auto second = cli({"report", db, "--json", "--run", "2"});
  EXPECT_DOUBLE_EQ(jsonDouble(first.out, "step_time_ns"), jsonDouble(second.out, "step_time_ns"));
  EXPECT_DOUBLE_EQ(jsonDouble(first.out, "bubble_ratio"), jsonDouble(second.out, "bubble_ratio"));
}

TEST(CliSim, LinkFlagsSlowTheStepDown) {
  TempDir dir;
  const std::string db = dir.file("links.sqlite");
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "1", "--db", db})
                .exit_code,
            0);
  // 2 stages, 1 micro-batch, one 1 MiB transfer each way at 8 Gb/s (1 B/ns) + 10 µs latency.
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "1", "--act-mb",
                 "1", "--link-gbps", "8", "--link-latency-us", "10", "--db", db})
                .exit_code,
            0);
  const double free = jsonDouble(cli({"report", db, "--json", "--run", "1"}).out, "step_time_ns");
  const double slow = jsonDouble(cli({"report", db, "--json", "--run", "2"}).out, "step_time_ns");
  EXPECT_DOUBLE_EQ(slow - free, 2.0 * ((1 << 20) + 10000));
}

}  // namespace
}  // namespace ps
