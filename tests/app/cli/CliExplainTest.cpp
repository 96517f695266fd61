// pipescope-cli report's explanation fields (DESIGN §5): the bubble breakdown per rank and for the
// run, and the critical path, on a simulated run with a slow link.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdio>
#include <string>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using ::testing::HasSubstr;

constexpr const char* kCauses[] = {"warmup_ns",     "drain_ns",     "dependency_ns",
                                   "transfer_ns",   "imbalance_ns", "barrier_ns",
                                   "collective_ns", "order_ns",     "other_ns"};

std::int64_t sumOfCauses(simdjson::dom::element breakdown) {
  std::int64_t sum = 0;
  for (const char* key : kCauses)
    sum += int64_t(breakdown[key]);
  return sum;
}

TEST(CliExplain, ReportJsonBreaksTheBubbleDownAndGivesTheCriticalPath) {
  test::TempDir dir;
  const std::string db = dir.file("explain.sqlite");
  const auto sim =
      cli({"sim", "--schedule", "gpipe", "--stages", "4", "--microbatches", "8", "--fwd-us", "1",
           "--bwd-us", "2", "--wgrad-us", "1", "--act-mb", "1", "--link-gbps", "1", "--db", db});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto r = cli({"report", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;

  const std::int64_t step = int64_t(doc["step_time_ns"]);
  std::int64_t runIdle = 0;
  for (simdjson::dom::element rank : doc["ranks"].get_array()) {
    const std::int64_t idle = step - int64_t(rank["busy_ns"]);
    EXPECT_EQ(sumOfCauses(rank["bubble_breakdown"]), idle) << int64_t(rank["rank"]);
    // The last rank's waits for activations are its order's: its backwards were ready.
    EXPECT_GT(int64_t(rank["bubble_breakdown"]["transfer_ns"]) +
                  int64_t(rank["bubble_breakdown"]["order_ns"]),
              0);
    runIdle += idle;
  }
  EXPECT_EQ(sumOfCauses(doc["bubble_breakdown"]), runIdle);

  simdjson::dom::element path = doc["critical_path"];
  EXPECT_EQ(int64_t(path["length_ns"]), step);
  simdjson::dom::array ops = path["ops"];
  ASSERT_GT(ops.size(), 0u);
  EXPECT_EQ(std::string_view(ops.at(0)["kind"]), "F");
  EXPECT_EQ(int64_t(ops.at(0)["start_ns"]), 0);
  bool crossesALink = false;
  for (simdjson::dom::element op : ops)
    crossesALink |= std::string_view(op["kind"]) == "RECV_F";
  EXPECT_TRUE(crossesALink);
}

TEST(CliExplain, ReportTextShowsTheCausesAndThePath) {
  test::TempDir dir;
  const std::string db = dir.file("explain.sqlite");
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "4", "--microbatches", "8", "--fwd-us",
                 "1", "--bwd-us", "2", "--wgrad-us", "1", "--db", db})
                .exit_code,
            0);
  const auto r = cli({"report", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("idle by cause"));
  // Rank 3 of 1F1B p=4 m=8: 3 of 33 µs warm-up, 6 drain (F = 1, B = 2).
  EXPECT_THAT(r.out, HasSubstr("   3  9.09 %     18.18 %    0.00 %"));
  EXPECT_THAT(r.out, HasSubstr("critical path  step 0, 33.000 µs"));
}

TEST(CliExplain, ReportSensitivityRanksWhatToSpeedUp) {
  test::TempDir dir;
  const std::string db = dir.file("sens.sqlite");
  ASSERT_EQ(cli({"sim", "--preset", "gpipe", "--db", db}).exit_code, 0);
  const auto r = cli({"report", db, "--json", "--sensitivity"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::array rows = doc["sensitivity"];
  ASSERT_EQ(rows.size(), 8u);  // F and B on 4 stages
  const std::int64_t step = int64_t(doc["step_time_ns"]);
  for (simdjson::dom::element row : rows)
    EXPECT_EQ(int64_t(row["step_ns"]) + int64_t(row["saved_ns"]), step);
  const auto text = cli({"report", db, "--sensitivity"});
  EXPECT_THAT(text.out, HasSubstr("10 % faster   shortens the step by\n  B on stage"));
}

// A torch-csv import reruns its schedule file; once the file is gone, its plan is fitted to its
// ops (issue 31 §3; before, imports were refused: "there is no plan to re-simulate").
TEST(CliExplain, SensitivityOfAnImportedRunRerunsOrFitsIt) {
  test::TempDir dir;
  const std::string csv = dir.file("s.csv"), db = dir.file("imp.sqlite");
  {
    std::FILE* f = std::fopen(csv.c_str(), "w");
    std::fputs("0F0,0B0\n,1F0,1B0\n", f);
    std::fclose(f);
  }
  ASSERT_EQ(cli({"import", "torch-csv", csv, "--db", db}).exit_code, 0);
  const auto r = cli({"report", db, "--sensitivity"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("B on stage"));
  std::remove(csv.c_str());
  const auto fitted = cli({"report", db, "--sensitivity"});
  EXPECT_EQ(fitted.exit_code, 0) << fitted.err;
  EXPECT_THAT(fitted.err, HasSubstr("run 1 was imported from torch-csv: plan fitted"));
  EXPECT_THAT(fitted.out, HasSubstr("B on stage"));
}

}  // namespace
}  // namespace ps
