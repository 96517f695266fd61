// Issue 30 item 17: one op row on a stray rank number (rank 1,000,000 in the report) must not make
// the analyses count every number below it. A run of ranks {0, 1, 2, 20000} has four ranks: the
// bubble is their mean, the report lists four, the idle causes add up over four.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <string>

#include "tests/trace/TraceBuilder.h"
#include "trace/analysis/PresentRanks.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"

namespace ps::trace {
namespace {

constexpr int kStray = 20000;

// Each rank busy 10 ns of a 40 ns step: a bubble of 3/4 on every rank.
RunTrace strayRankRun() {
  TraceBatch batch;
  batch.ops.push_back(test::compute(0, OpKind::F, 0, 0, 10));
  batch.ops.push_back(test::compute(1, OpKind::F, 0, 10, 20));
  batch.ops.push_back(test::compute(2, OpKind::F, 0, 20, 30));
  batch.ops.push_back(test::compute(kStray, OpKind::F, 0, 30, 40));
  return test::roundTrip(test::simpleHeader(3, "stray"), batch);
}

TEST(PresentRanks, AStrayRankNumberCountsAsOneRank) {
  const RunTrace run = strayRankRun();
  ASSERT_EQ(run.ranks.size(), std::size_t{kStray + 1});  // the loader indexes by number
  EXPECT_EQ(presentRankCount(run), 4u);
  const RunAnalysis a = analyzeRun(run);
  EXPECT_EQ(a.run.num_ranks, 4);
  ASSERT_EQ(a.ranks.size(), 4u);
  EXPECT_EQ(a.ranks.back().rank, kStray);
  ASSERT_TRUE(a.bubble_ratio.has_value());
  EXPECT_DOUBLE_EQ(*a.bubble_ratio, 0.75);
  for (const auto& r : a.ranks)
    EXPECT_DOUBLE_EQ(r.bubble_ratio.value_or(-1), 0.75) << "rank " << r.rank;
}

TEST(PresentRanks, IdleCausesAndTheReportCoverOnlyThePresentRanks) {
  const RunTrace run = strayRankRun();
  const RunExplanation why = explainRun(run);
  EXPECT_EQ(why.bubbles.rankCount, 4u);
  EXPECT_EQ(why.bubbles.run.total(), 4 * 30);
  EXPECT_EQ(why.bubbles.spanSumNs, 40);
  std::int64_t idleOfAbsent = 0;
  for (std::size_t r = 3; r < kStray; ++r)
    idleOfAbsent += why.bubbles.ranks[r].total();
  EXPECT_EQ(idleOfAbsent, 0);
  const RunAnalysis a = analyzeRun(run);
  const std::string text = reportText(a, &why, nullptr);
  EXPECT_NE(text.find("ranks 4 "), std::string::npos) << text;
  EXPECT_LT(text.size(), 4000u) << "one line per present rank, not per number";
  EXPECT_NE(text.find("20000"), std::string::npos);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const std::string json = reportJson(a, &why, nullptr);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(doc["run"]["ranks"]), 4);
  EXPECT_EQ(simdjson::dom::array(doc["ranks"]).size(), 4u);
  EXPECT_DOUBLE_EQ(double(doc["bubble_ratio"]), 0.75);
}

}  // namespace
}  // namespace ps::trace
