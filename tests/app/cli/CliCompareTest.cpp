// pipescope-cli compare end to end: golden text and JSON of simulated runs (deterministic), runs
// from one file and from two, and every bad input (exit 2, one line naming the argument).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::TempDir;
using ::testing::HasSubstr;

using test::cli;

// Appends a simulated 1F1B p=4 m=8 run to `db`, plus `extra` flags.
void sim(const std::string& db, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sim", "--schedule", "1f1b", "--stages", "4", "--microbatches",
                                   "8",   "--db",       db};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// The temporary directory's path reads "<dir>" so that goldens do not depend on it.
std::string withoutDir(std::string text, const TempDir& dir) {
  const std::string d = dir.path().string();
  for (auto at = text.find(d); at != std::string::npos; at = text.find(d))
    text.replace(at, d.size(), "<dir>");
  return text;
}

void expectGolden(const std::string& text, const std::string& name) {
  const std::string path = test::sourcePath("tests/app/golden/" + name);
  if (std::getenv("PIPESCOPE_UPDATE_GOLDEN")) test::writeFile(path, text);  // then review the diff
  EXPECT_EQ(text, test::readFile(path)) << "new text of " << name << ":\n" << text;
}

// Two runs of one file: free links vs 10 Gb/s links carrying 1 MiB activations.
class CliCompare : public ::testing::Test {
 protected:
  void SetUp() override {
    db = dir.file("runs.sqlite");
    sim(db);
    sim(db, {"--link-gbps", "10", "--act-mb", "1"});
  }
  TempDir dir;
  std::string db;
};

TEST_F(CliCompare, TwoRunsOfOneFileMatchTheGoldenText) {
  const auto r = cli({"compare", db, "1", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  expectGolden(r.out, "compare_1f1b_links.txt");
}

TEST_F(CliCompare, JsonMatchesTheGoldenAndParses) {
  const auto r = cli({"compare", db, "1", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expectGolden(withoutDir(r.out, dir), "compare_1f1b_links.json");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(int64_t(doc["a"]["id"]), 1);
  EXPECT_EQ(int64_t(doc["b"]["id"]), 2);
  EXPECT_EQ(std::string_view(doc["rows"].at(0)["key"]), "step_time_ns");
  EXPECT_GT(double(doc["rows"].at(0)["diff"]), 0.0) << "slow links make the step longer";
}

TEST_F(CliCompare, RunsFromTwoFiles) {
  const std::string other = dir.file("other.sqlite");
  sim(other, {"--link-gbps", "10", "--act-mb", "1"});
  // FILE:RUN FILE:RUN is the same table as FILE RUN_A RUN_B, but for the files named.
  const auto r = cli({"compare", db + ":1", other + ":1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expectGolden(r.out, "compare_two_files.txt");
  // Without :RUN each file's latest run: run 2 of runs.sqlite against run 1 of other.sqlite.
  const auto latest = cli({"compare", db, other, "--json"});
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(latest.out).get(doc), simdjson::SUCCESS) << latest.out;
  EXPECT_EQ(int64_t(doc["a"]["id"]), 2);
  EXPECT_EQ(std::string_view(doc["a"]["origin"]), db);
  EXPECT_EQ(int64_t(doc["b"]["id"]), 1);
  EXPECT_EQ(std::string_view(doc["b"]["origin"]), other);
  EXPECT_EQ(doc["differences"].get_array().size(), 0u) << "the same plan on both sides";
  EXPECT_DOUBLE_EQ(double(doc["rows"].at(0)["diff"]), 0.0);
}

TEST_F(CliCompare, APathHoldingAColonOpensAsAFile) {
  // "runs:2" is a file: taken whole (its latest run), not as run 2 of "runs".
  const std::string colon = dir.file("runs:2");
  std::filesystem::copy_file(db, colon);
  const auto whole = cli({"compare", colon, db + ":1", "--json"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_THAT(whole.out, HasSubstr("\"origin\": \"" + colon + "\""));
  // And "runs:2:1" is run 1 of it.
  const auto withRun = cli({"compare", colon + ":1", db + ":2"});
  ASSERT_EQ(withRun.exit_code, 0) << withRun.err;
  EXPECT_THAT(withRun.out, HasSubstr("A  run 1 \"1f1b p=4 m=8\" (runs:2)"));
}

TEST_F(CliCompare, NeverWritesTheFiles) {
  const auto before = test::readFile(db);
  const auto mtime = std::filesystem::last_write_time(db);
  ASSERT_EQ(cli({"compare", db, "1", "2"}).exit_code, 0);
  ASSERT_EQ(cli({"compare", db, db, "--json"}).exit_code, 0);
  EXPECT_EQ(test::readFile(db), before);
  EXPECT_EQ(std::filesystem::last_write_time(db), mtime);
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    EXPECT_FALSE(std::filesystem::exists(db + suffix)) << suffix;
}

TEST_F(CliCompare, BadInputsExitTwoWithOneLineNamingTheArgument) {
  const std::string missing = dir.file("missing.sqlite");
  const std::string text = dir.file("text.sqlite");
  test::writeFile(text, std::string(8192, 'z'));
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"compare", missing, db}, missing + ": no such file"},
      {{"compare", db, missing}, missing + ": no such file"},
      {{"compare", missing + ":3", db}, missing + ":3: no such file '" + missing + "'"},
      {{"compare", missing, "1", "2"}, missing + ": no such file"},
      {{"compare", text, db}, text + ": not a SQLite database"},
      {{"compare", db, "1", "42"}, db + ": no run with id 42"},
      {{"compare", db + ":7", db}, db + ": no run with id 7"},
      {{"compare", db, "abc", "2"}, "RUN_A 'abc' is not a run id"},
      {{"compare", db, "1", "2x"}, "RUN_B '2x' is not a run id"},
      {{"compare", db + ":x", db}, db + ":x: no such file, and 'x' after the ':' is not a run id"},
      {{"compare", db + ":", db}, db + ":: no such file"},
      {{"compare", db, "1"}, "RUN_B missing: '1' reads as a run id"},
      {{"compare", db}, "got 1 argument"},
      {{"compare", db, "1", "2", "3"}, "got 4 arguments"},
      {{"compare"}, "RUNS"},
      {{"compare", db, "1", "2", "--bogus"}, "--bogus"},
  };
  for (const auto& c : cases) {
    const auto r = cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.expected;
    EXPECT_THAT(r.err, HasSubstr("pipescope-cli: error: "));
    EXPECT_THAT(r.err, HasSubstr(c.expected));
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(std::filesystem::exists(missing)) << "a read never creates the file";
  }
}

TEST(CliCompareHelp, NamesBothForms) {
  const auto help = cli({"compare", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("FILE[:RUN] FILE[:RUN]"));
  EXPECT_THAT(help.out, HasSubstr("FILE RUN_A RUN_B"));
  EXPECT_THAT(help.out, HasSubstr("--json"));
}

}  // namespace
}  // namespace ps
