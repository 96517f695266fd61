// pipescope-cli report end to end: the real binary on hand-made files.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <filesystem>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"
#include "trace/store/TraceStore.h"

namespace ps {
namespace {

using test::runCommand;
using test::TempDir;
using ::testing::HasSubstr;

using test::cli;

TEST(CliReport, JsonGivesTheHandComputedBubble) {
  // Hand-made: 2 ranks, one step. rank 0 computes [0,40) and [60,100); rank 1 [20,80).
  // span 100; rank 0 busy 80 -> 0.2; rank 1 busy 60 -> 0.4; bubble 0.3.
  TempDir dir;
  const std::string path = dir.file("hand.sqlite");
  trace::TraceBatch b;
  b.ops = {test::compute(0, trace::OpKind::F, 0, 0, 40),
           test::compute(0, trace::OpKind::B, 0, 60, 100),
           test::compute(1, trace::OpKind::F, 0, 20, 80), test::send(0, 1, 1000, 40, 50)};
  b.memory = {{0, 0, 10}, {0, 40, 30}, {1, 0, 5}};
  b.metrics = {{0, 1, "loss", 0.75}};
  test::writeRun(path, test::simpleHeader(2), b);

  const auto r = cli({"report", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_NEAR(double(doc["bubble_ratio"]), 0.3, 1e-12);
  EXPECT_EQ(int64_t(doc["step_time_ns"]), 100);
  EXPECT_NEAR(double(doc["ranks"].at(0)["bubble_ratio"]), 0.2, 1e-12);
  EXPECT_EQ(int64_t(doc["ranks"].at(0)["peak_memory_bytes"]), 30);
  EXPECT_EQ(int64_t(doc["links"].at(0)["bytes"]), 1000);
  EXPECT_EQ(int64_t(doc["links"].at(0)["busy_ns"]), 10);
  EXPECT_NEAR(double(doc["metrics"]["loss"]), 0.75, 1e-12);
}

TEST(CliReport, DefaultsToTheLatestRunAndTakesRunId) {
  TempDir dir;
  const std::string path = dir.file("two.sqlite");
  trace::TraceBatch a, b;
  a.ops = {test::compute(0, trace::OpKind::F, 0, 0, 10)};
  b.ops = {test::compute(0, trace::OpKind::F, 0, 0, 10),
           test::compute(0, trace::OpKind::F, 1, 20, 30)};
  test::writeRun(path, test::simpleHeader(1, "older"), a);
  test::writeRun(path, test::simpleHeader(1, "newer"), b);
  const auto latest = cli({"report", path});
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_THAT(latest.out, HasSubstr("\"newer\""));
  EXPECT_THAT(latest.out, HasSubstr("bubble ratio   33.33 %"));
  const auto first = cli({"report", path, "--run", "1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("\"older\""));
  EXPECT_THAT(first.out, HasSubstr("bubble ratio   0.00 %"));
}

TEST(CliReport, BadInputsExitTwoWithOneLineNamingTheFile) {
  TempDir dir;
  const std::string missing = dir.file("missing.sqlite");
  const std::string text = dir.file("text.sqlite");
  test::writeFile(text, std::string(8192, 'z'));
  const std::string good = dir.file("good.sqlite");
  trace::SyntheticGpipe g;
  test::writeRun(good, trace::syntheticGpipeHeader(g), trace::syntheticGpipeStep(g, 0));

  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"report", missing}, missing + ": no such file"},
      {{"report", text}, text + ": not a SQLite database"},
      {{"report", good, "--run", "42"}, good + ": no run with id 42"},
      {{"report", good, "--run", "abc"}, "--run"},
      {{"report"}, "FILE"},
      {{"report", good, "--bogus"}, "--bogus"},
  };
  for (const auto& c : cases) {
    const auto r = cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.expected;
    EXPECT_THAT(r.err, HasSubstr("pipescope-cli: error: "));
    EXPECT_THAT(r.err, HasSubstr(c.expected));
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CliReport, HelpAndVersion) {
  const auto help = cli({"report", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--json"));
  const auto version = cli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("pipescope-cli 0."));
  const auto none = cli({});
  EXPECT_EQ(none.exit_code, 2);
}

TEST(CliDemo, WritesARunThatReportsTheClosedFormBubble) {
  TempDir dir;
  const std::string path = dir.file("demo.sqlite");
  const auto w = cli({"demo", "--db", path, "--stages", "4", "--microbatches", "8"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const auto r = cli({"report", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  EXPECT_NEAR(double(doc["bubble_ratio"]), 3.0 / 11.0, 1e-12);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal")) << "the writer leaves the file at rest";
}

// Issue 12, case 7: a run row claiming 2^31-1 ranks while two ranks hold ops (a damaged or
// hostile file) reported 2147483647 ranks and a 100 % bubble after 10 s; the ranks that exist
// are what is reported, at once.
TEST(CliReport, ARunClaimingTwoBillionRanksReportsTheTwoThatHoldOps) {
  TempDir dir;
  const std::string path = dir.file("claims.sqlite");
  // 1F1B on 2 ranks with 2 micro-batches: a 1/3 bubble.
  const auto sim =
      cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--db", path});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const std::int64_t id = 1;
  {
    auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok()) << store.error();
    ASSERT_TRUE(store->db()
                    .exec("UPDATE run SET num_ranks=2147483647 WHERE id=" + std::to_string(id))
                    .ok());
  }
  const auto start = std::chrono::steady_clock::now();
  const auto r = cli({"report", path, "--json"});
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(ms, 5000) << "report took " << ms << " ms";
  EXPECT_LT(r.out.size(), 10000u);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(int64_t(doc["run"]["ranks"]), 2);
  EXPECT_EQ(simdjson::dom::array(doc["ranks"]).size(), 2u);
  EXPECT_NEAR(double(doc["bubble_ratio"]), 1.0 / 3.0, 1e-9);
  const auto text = cli({"report", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("ranks 2 "));
  EXPECT_THAT(text.out, HasSubstr("bubble ratio   33.33 %"));
  // The correction is said, once, on stderr: the reader sees why the header disagrees.
  EXPECT_THAT(text.err, HasSubstr("pipescope-cli: warning: " + path +
                                  ": run 1: the run says 2147483647 ranks but its ops, rank "
                                  "rows and memory name 2: 2 loaded"));
}

}  // namespace
}  // namespace ps
