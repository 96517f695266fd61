// report --slack (issue 36 §3) end to end: on 1F1B with the last rank four times slower than the
// others, that rank's ops are all critical (slack 0) and the others' have slack; --json gives
// every op's slack_ns; --sensitivity says why speeding an op with slack saves nothing; an
// imported run (a sim exported to Chrome JSON and imported back) gets the same slack.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

TEST(CliReportSlack, TheSlowRankIsCriticalAndTheOthersHaveSlack) {
  TempDir dir;
  const std::string db = dir.file("slow.sqlite");
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "4", "--microbatches", "8",
                 "--rank-speed", "2,2,2,0.5", "--db", db})
                .exit_code,
            0);
  const auto text = cli({"report", db, "--slack"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("slack: how much longer an op could take"));
  EXPECT_THAT(text.out, HasSubstr("    3  F     8     8         0 ns         0 ns         0 ns\n"));
  EXPECT_THAT(text.out, HasSubstr("    0  F     8     1         0 ns         1.350 ms"));

  const auto json = cli({"report", db, "--slack", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
  int ops = 0, critical = 0;
  for (simdjson::dom::element op : doc["slack"]["ops"].get_array()) {
    ++ops;
    const std::int64_t slack = int64_t(op["slack_ns"]);
    EXPECT_GE(slack, 0);
    if (int64_t(op["rank"]) == 3 && std::string_view(op["kind"]) != "OPT") {
      EXPECT_EQ(slack, 0);
    }
    critical += slack == 0;
  }
  EXPECT_EQ(ops, 4 * 16 + 4) << "every F, B and OPT";
  EXPECT_GT(critical, 16);
  EXPECT_LT(critical, ops);

  // Imported from Chrome JSON: the same ops, the same slack.
  const std::string chrome = dir.file("slow.json"), imported = dir.file("imported.sqlite");
  ASSERT_EQ(cli({"export", "chrome", db, "--out", chrome}).exit_code, 0);
  ASSERT_EQ(cli({"import", "kineto", chrome, "--db", imported}).exit_code, 0);
  const auto again = cli({"report", imported, "--slack"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out,
              HasSubstr("    3  F     8     8         0 ns         0 ns         0 ns\n"));
  EXPECT_THAT(again.out, HasSubstr("    0  F     8     1         0 ns         1.350 ms"));
}

TEST(CliReportSlack, SensitivitySaysWhyASpeedUpSavesNothing) {
  TempDir dir;
  const std::string db = dir.file("towers.sqlite");
  // GraphPipe's two towers (stages 0>1 and 2>3 into 4) with the second given fewer layers: its
  // ops wait for the first tower's, so none of its backwards is on the critical path.
  ASSERT_EQ(
      cli({"sim", "--preset", "graphpipe", "--boundaries", "5,10,13,16", "--db", db}).exit_code, 0);
  const auto r = cli({"report", db, "--sensitivity"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  B on stage 2 (rank 2)   0 ns  (speeding this up saves nothing: "
                               "slack >= 600.000 µs)\n"));
  EXPECT_THAT(r.out, HasSubstr("  B on stage 1 (rank 1)   200.000 µs\n"))
      << "a critical one: no note";
}

}  // namespace
}  // namespace ps
