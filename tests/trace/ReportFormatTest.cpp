// Golden text for the people-facing report; the JSON report parsed back field by field.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>

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
  const std::string path = std::string(PIPESCOPE_GOLDEN_DIR) + "/gpipe_p4_m8.txt";
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
}

}  // namespace
}  // namespace ps::trace
