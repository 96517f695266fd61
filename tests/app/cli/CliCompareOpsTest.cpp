// compare --ops (issue 36 §4): two runs op by op. A slower link moves every op after the first
// transfer and the bubble's change is mostly transfer waits; a run against its own Chrome
// export imported back matches every op with no move; more micro-batches leave B's extra ops
// listed as B's own; --json carries the same.

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

std::string simOneF1B(const std::string& db, std::vector<std::string> flags) {
  std::vector<std::string> args = {"sim", "--schedule", "1f1b", "--stages", "4", "--db", db};
  args.insert(args.end(), flags.begin(), flags.end());
  const auto r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(CliCompareOps, ASlowerLinkMovesTheOpsAndTheBubbleByTransferWaits) {
  TempDir dir;
  const std::string db = dir.file("runs.sqlite");
  simOneF1B(db, {"--microbatches", "8"});
  simOneF1B(db, {"--microbatches", "8", "--link-gbps", "10", "--act-mb", "2"});
  const auto r = cli({"compare", db, "1", "2", "--ops"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("bubble change by cause (points of the step, B - A): +47.44 pts "
                               "transfer, +12.77 pts dependency"));
  EXPECT_THAT(r.out, HasSubstr("= +64.77 pts (27.27 -> 92.04)\n"));
  EXPECT_THAT(r.out, HasSubstr("ops matched 68; only in A 0, only in B 0\n"));
  EXPECT_THAT(r.out, HasSubstr("r0:0B7              3.100 ms      29.944 ms     +26.844 ms"));

  const auto json = cli({"compare", db, "1", "2", "--ops", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
  EXPECT_EQ(int64_t(doc["op_diff"]["matched"]), 68);
  EXPECT_NEAR(double(doc["op_diff"]["bubble_change_points"]["transfer"]), 47.44, 0.01);
  EXPECT_EQ(doc["op_diff"]["moves"].get_array().size(), 20u);
  EXPECT_EQ(int64_t(doc["op_diff"]["moves"].at(1)["delta_start_ns"]), 26843552);
}

TEST(CliCompareOps, AnImportMatchesItsRunAndExtraMicroBatchesAreListed) {
  TempDir dir;
  const std::string db = dir.file("runs.sqlite"), json = dir.file("run.json"),
                    imported = dir.file("imported.sqlite");
  simOneF1B(db, {"--microbatches", "8"});
  ASSERT_EQ(cli({"export", "chrome", db, "--out", json}).exit_code, 0);
  ASSERT_EQ(cli({"import", "kineto", json, "--db", imported}).exit_code, 0);
  const auto same = cli({"compare", db, imported, "--ops"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_THAT(same.out, HasSubstr("ops matched 68; only in A 0, only in B 0\n"));
  EXPECT_THAT(same.out, HasSubstr("B - A): no cause moved, +0.00 pts (27.27 -> 27.27)\n"));
  EXPECT_THAT(same.out, HasSubstr("r0:0F0              0 ns          0 ns          0 ns"));

  simOneF1B(db, {"--microbatches", "10"});
  const auto more = cli({"compare", db + ":1", db + ":2", "--ops"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_THAT(more.out, HasSubstr("only in A 0, only in B 16\n"));
  EXPECT_THAT(more.out, HasSubstr("only in B: r0:0F8 r0:0F9 r0:0B8 r0:0B9 r1:1F8 "));
}

}  // namespace
}  // namespace ps
