// pipescope-cli presets and sim --preset (DESIGN §5, §8): the list, one preset in full, a preset's
// plan with a flag over it, and an unknown name refused before any file is touched.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "trace/FileText.h"

namespace ps {
namespace {

using test::cli;
using ::testing::HasSubstr;

TEST(CliPresets, ListsEveryPresetAndShowsOne) {
  const auto list = cli({"presets"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("gpipe            GPipe: all forwards, then all backwards\n"));
  EXPECT_THAT(list.out, HasSubstr("\nzb-v "));
  const auto one = cli({"presets", "1f1b"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("formula   (p-1)/(m+p-1)\n"));
  EXPECT_THAT(one.out, HasSubstr("plan      --schedule 1f1b --stages 4 --microbatches 8"));
}

TEST(CliPresets, SimRunsAPresetWithTheFlagsGivenOverIt) {
  test::TempDir dir;
  const std::string db = dir.file("preset.sqlite");
  const auto sim = cli({"sim", "--preset", "1f1b", "--microbatches", "16", "--db", db});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr("1f1b p=4 m=16"));
  const auto r = cli({"report", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(doc["run"]["microbatches"]), 16);
  // The preset's costs (F = 100 µs, B = 200 µs) kept: (p-1)/(m+p-1) = 3/19.
  EXPECT_NEAR(double(doc["bubble_ratio"]), 3.0 / 19.0, 1e-12);
  EXPECT_EQ(int64_t(doc["step_time_ns"]), 5700000);
}

TEST(CliPresets, AnUnknownPresetIsRefusedBeforeTheFileIsTouched) {
  test::TempDir dir;
  const std::string db = dir.file("none.sqlite");
  const auto r = cli({"sim", "--preset", "gpipe2", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--preset: unknown preset \"gpipe2\" (there are: 1f1b, 2bp, "));
  EXPECT_THAT(r.err, HasSubstr(", chimera, "));
  EXPECT_FALSE(std::filesystem::exists(db));
}

// The README's table of the papers' systems is the tool's own output: figures written by hand
// went stale (TeraPipe's "3.49 vs 6.77 ms" where the tool gave 4.93 vs 7.22).
TEST(CliPresets, TheReadmesTableIsTheToolsOwn) {
  const auto r = cli({"presets", "--headlines"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| `terapipe` TeraPipe: one long sequence pipelined slice by slice "
                               "| step_time_ns | 7.223 ms | 4.934 ms | -31.7 % |\n"));
  auto readme = trace::readTextFile(test::sourcePath("README.md"), 1 << 24, "README");
  ASSERT_TRUE(readme.ok()) << readme.error();
  const std::string begin = "<!-- presets --headlines: begin -->\n",
                    end = "<!-- presets --headlines: end -->";
  const auto from = readme->find(begin), to = readme->find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(readme->substr(from + begin.size(), to - from - begin.size()), r.out)
      << "paste `pipescope-cli presets --headlines` between the README's markers";
  EXPECT_EQ(cli({"presets", "--headlines", "gpipe"}).exit_code, 2);
}

}  // namespace
}  // namespace ps
