// Comma-list flags refuse an empty item by flag and value (issue 30, item 19): CLI11's delimiter
// dropped it, so --rank-speed 1,,1,1 was read as three speeds (and 1,,1,2,1 as four, rank 3's
// speed moved onto rank 2). Every comma-list flag of sim and explore is covered; a good list
// still gives its numbers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using ::testing::HasSubstr;

TEST(CliListFlags, AnEmptyItemIsRefusedByFlagAndValue) {
  test::TempDir dir;
  const std::string db = dir.file("l.sqlite");
  const std::vector<std::vector<std::string>> cases = {
      {"sim", "--rank-speed", "1,,1,1"},
      {"sim", "--rank-speed", "1,1,1,1,"},
      {"sim", "--rank-memory-gb", "80,80,,40"},
      {"sim", "--schedule", "gpipe", "--token-slices", "512,,512"},
      {"sim", "--seq-lengths", "512,,96"},
      {"sim", "--schedule", "gpipe", "--stage-graph", "0>1,,2>3"},
      {"explore", "--microbatches", "8,,16"},
      {"explore", "--chunks", "1,"},
      {"explore", "--dp", ",1"},
      {"explore", "--schedules", "gpipe,,1f1b"},
      {"explore", "--mappings", "rank,"},
      {"explore", "--rank-speed", "1,,1,1"},
  };
  for (auto args : cases) {
    const std::string flag = args[args.size() - 2], value = args.back();
    args.insert(args.end(), {"--db", db});
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value;
    EXPECT_THAT(r.err, HasSubstr(flag + " " + value + ": item ")) << r.err;
    EXPECT_THAT(r.err, HasSubstr(" is empty (give a value between every two commas)"));
  }
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(CliListFlags, GoodListsStillTakeEveryValue) {
  test::TempDir dir;
  const std::string db = dir.file("l.sqlite");
  // Rank 2 twice as fast: 1F1B p4 m8 at 100/200 µs is no longer 3.3 ms.
  const auto r =
      cli({"sim", "--rank-speed", "1,1,2,1", "--rank-memory-gb", "80, 80,40,40", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = test::runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"rank_speed\":[1,1,2,1]"));
  EXPECT_THAT(runs[0].config_json, HasSubstr("\"rank_memory_gb\":[80,80,40,40]"));
  const auto bad = cli({"sim", "--rank-speed", "1,x,1,1", "--db", db});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--rank-speed 1,x,1,1: 'x' is not a number"));
  const auto range = cli({"explore", "--microbatches", "8,5000"});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_THAT(range.err, HasSubstr("--microbatches 8,5000: 5000 is outside 1..4096"));
}

}  // namespace
}  // namespace ps
