// pipescope-cli synth (issue 36 §1) as a user runs it: under ZB-H1's peak on the skewed
// transformer it prints itself against the generators (ZB-H2 refused), writes a torch CSV that
// `sim --schedule-file` reads back to the same step, and appends that run with --db; bad input
// is refused by name with exit 2 and nothing written.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

std::string skewed() {
  return test::sourcePath("resources/costs/skewed-transformer.json");
}

// The first match of `pattern`'s group 1 in `text`, or "".
std::string find(const std::string& text, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : std::string();
}

TEST(CliSynth, WritesACsvThatSimReadsBackToTheSameStep) {
  TempDir dir;
  const std::string csv = dir.file("synth.csv"), db = dir.file("synth.sqlite");
  const auto r = cli({"synth", "--stages", "4", "--microbatches", "8", "--costs", skewed(),
                      "--cap-of", "zb-h1", "--out", csv, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("caps 394.00 MiB"));
  EXPECT_THAT(r.out, HasSubstr("refused: rank 0 needs 401.50 MiB"));  // zb-h2
  const std::string step = find(r.out, R"(\n  synth\s+([0-9.]+ ms))");
  ASSERT_FALSE(step.empty()) << r.out;
  EXPECT_THAT(r.out, HasSubstr("read back from " + csv + ": step " + step));
  EXPECT_EQ(test::runsIn(db).size(), 1u);
  const std::string cut = find(r.out, R"(--boundaries ([0-9,]+))");
  ASSERT_FALSE(cut.empty()) << r.out;
  const auto back = cli({"sim", "--schedule-file", csv, "--costs", skewed(), "--boundaries", cut,
                         "--db", dir.file("back.sqlite")});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_THAT(back.out, HasSubstr("step " + step));
}

TEST(CliSynth, BadInputIsRefusedByNameAndWritesNothing) {
  TempDir dir;
  const std::string db = dir.file("x.sqlite"), csv = dir.file("x.csv");
  const auto schedule = cli({"synth", "--schedule", "zb-h1", "--stages", "4", "--out", csv});
  EXPECT_EQ(schedule.exit_code, 2);
  EXPECT_THAT(schedule.err, HasSubstr("synth: --schedule"));
  const auto noOut = cli({"synth", "--stages", "4", "--db", db});
  EXPECT_EQ(noOut.exit_code, 2);
  EXPECT_THAT(noOut.err, HasSubstr("--db: give --out"));
  const auto none = cli({"synth", "--stages", "4", "--microbatches", "8", "--costs", skewed(),
                         "--rank-memory-gb", "0.37,0.37,0.37,0.37", "--out", csv, "--db", db});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("no schedule exists"));
  const auto dp = cli({"synth", "--stages", "4", "--dp", "2", "--microbatches", "8"});
  EXPECT_EQ(dp.exit_code, 2);
  EXPECT_THAT(dp.err, HasSubstr("synth: --dp"));
  const auto limit = cli({"synth", "--stages", "4", "--time-limit", "0"});
  EXPECT_EQ(limit.exit_code, 2);
  EXPECT_THAT(limit.err, HasSubstr("--time-limit"));
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(csv));
}

}  // namespace
}  // namespace ps
