// Golden text for the people-facing report; the JSON report parsed back field by field.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>

#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"
#include "trace/analysis/ReportFormat.h"

namespace ps::trace {
namespace {

RunAnalysis gpipeAnalysis() {
  SyntheticGpipe g;  // p=4, m=8, t=1 µs
  auto header = syntheticGpipeHeader(g);
  header.info.created_utc = "2026-01-01T00:00:00Z";
  for (auto& l : header.ranks)
    l.memory_capacity_bytes = std::int64_t{1} << 30;
  auto a = analyzeRun(test::roundTrip(header, syntheticGpipeStep(g, 0)));
  return a;
}

TEST(ReportFormat, TextMatchesGolden) {
  const std::string text = reportText(gpipeAnalysis());
  const std::string path = test::sourcePath("tests/trace/golden/gpipe_p4_m8.txt");
  if (std::getenv("PIPESCOPE_UPDATE_GOLDEN")) test::writeFile(path, text);  // then review the diff
  const std::string golden = test::readFile(path);
  EXPECT_EQ(text, golden) << "new text:\n" << text;
}

TEST(ReportFormat, JsonHasTheContractFields) {
  const std::string json = reportJson(gpipeAnalysis());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(doc["run"]["source"]), "sim");
  EXPECT_EQ(std::string_view(doc["run"]["schedule"]), "gpipe");
  EXPECT_EQ(int64_t(doc["run"]["ranks"]), 4);
  EXPECT_EQ(int64_t(doc["run"]["microbatches"]), 8);
  EXPECT_EQ(int64_t(doc["run"]["chunks"]), 1);
  EXPECT_EQ(int64_t(doc["step_time_ns"]), 33000);
  EXPECT_NEAR(double(doc["bubble_ratio"]), 3.0 / 11.0, 1e-9);
  EXPECT_TRUE(doc["steady_bubble_ratio"].is_null());
  simdjson::dom::array ranks = doc["ranks"];
  ASSERT_EQ(ranks.size(), 4u);
  for (auto r : ranks) {
    EXPECT_EQ(int64_t(r["busy_ns"]), 24000);
    EXPECT_EQ(int64_t(r["peak_memory_bytes"]), (64 << 20) + 8 * (1 << 20));
  }
  simdjson::dom::array links = doc["links"];
  ASSERT_EQ(links.size(), 6u);  // 0->1, 1->0, 1->2, 2->1, 2->3, 3->2
  EXPECT_EQ(int64_t(links.at(0)["bytes"]), 8 * (1 << 20));
  EXPECT_NEAR(double(doc["metrics"]["loss"]), 2.0, 1e-12);
  EXPECT_TRUE(doc["compute_coverage"].is_null());  // not an imported run
}

// Issue 12 case 11: an imported run whose few recognised ops (8 optimizer steps in a DLRM trace)
// made a "bubble 40.83 %" that measured nothing.
TEST(ReportFormat, LowComputeCoverageIsSaidBesideTheBubble) {
  RunAnalysis a = gpipeAnalysis();
  a.run.source = "kineto";
  a.run.config_json = R"({"import":{"format":"kineto","recognised_busy_ns":3000,)"
                      R"("raw_busy_ns":100000}})";
  const std::string text = reportText(a);
  EXPECT_NE(text.find("bubble ratio   27.27 %  (recognised compute covers 3.00 % of busy time: "
                      "not a pipeline trace?)\n"),
            std::string::npos)
      << text;
  const std::string json = reportJson(a);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_NEAR(double(doc["compute_coverage"]), 0.03, 1e-12);
}

TEST(ReportFormat, HighComputeCoverageAddsNothing) {
  RunAnalysis a = gpipeAnalysis();
  a.run.config_json = R"({"import":{"recognised_busy_ns":90,"raw_busy_ns":100}})";
  EXPECT_NE(reportText(a).find("bubble ratio   27.27 %\n"), std::string::npos) << reportText(a);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const std::string json = reportJson(a);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_NEAR(double(doc["compute_coverage"]), 0.9, 1e-12);
}

// Issue 12 case 14: names from a file held ESC sequences, CR and 100k characters and were printed
// raw; the text escapes them, the JSON stays valid and keeps them exactly.
TEST(ReportFormat, TextFromTheFileIsPrintedSafely) {
  RunAnalysis a = gpipeAnalysis();
  a.run.name = "\x1b]0;owned\x07\x1b[2J\rrun " + std::string(100'000, 'n');
  a.run.source = "kineto\x1b[31m";
  a.run.status_message = "failed:\x1b[1A\x1b[K hidden";
  a.metrics["\x1b[31mloss\r"] = 1.5;
  const std::string text = reportText(a);
  for (char c : text)
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
  EXPECT_NE(text.find("run 1  \"\\x1b]0;owned\\x07\\x1b[2J\\rrun nnn"), std::string::npos)
      << text.substr(0, 400);
  EXPECT_NE(text.find("(+99819 chars)\"  source kineto\\x1b[31m"), std::string::npos)
      << text.substr(0, 400);
  EXPECT_NE(text.find("failed:\\x1b[1A\\x1b[K hidden"), std::string::npos);
  EXPECT_NE(text.find("  \\x1b[31mloss\\r"), std::string::npos) << text;
  EXPECT_LT(text.size(), 3000U);

  const std::string json = reportJson(a);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["run"]["name"]), a.run.name);
  EXPECT_NEAR(double(doc["metrics"]["\x1b[31mloss\r"]), 1.5, 1e-12);
}

}  // namespace
}  // namespace ps::trace
