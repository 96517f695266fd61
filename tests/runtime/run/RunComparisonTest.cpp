// The comparison table of two runs: rows from hand-made analyses whose numbers are read off
// directly, differences and ratios with zero and missing values, and the knobs that differ.

#include <gtest/gtest.h>
#include <simdjson.h>

#include "runtime/run/RunComparison.h"

namespace ps::trace {
namespace {

// The compare table and run labels live in runtime (they read the plan knob table).
using namespace ::ps::runtime;

RunAnalysis analysis(std::int64_t id, std::int64_t stepNs, double bubble, std::int64_t busy0,
                     std::int64_t busy1) {
  RunAnalysis a;
  a.run.id = id;
  a.run.name = "run" + std::to_string(id);
  a.run.source = "sim";
  a.run.status = RunStatus::Complete;
  a.step_time_ns = stepNs;
  a.bubble_ratio = bubble;
  a.ranks = {{0, busy0, bubble, 100, std::nullopt}, {1, busy1, bubble, 300, std::nullopt}};
  a.links = {{0, 1, 1000, 10, 1}, {1, 0, 24, 10, 1}};
  return a;
}

const CompareRow& row(const RunComparison& c, const std::string& key) {
  for (const auto& r : c.rows)
    if (r.key == key) return r;
  static const CompareRow none{"(missing)", "", CompareUnit::Plain, std::nullopt, std::nullopt};
  ADD_FAILURE() << "no row " << key;
  return none;
}

TEST(RunComparison, RowsHoldBothValuesInOrder) {
  RunAnalysis a = analysis(1, 1000, 0.25, 600, 800);
  RunAnalysis b = analysis(2, 4000, 0.40, 1000, 1400);
  b.ranks[1].peak_memory_bytes = 2048;
  b.links.push_back({1, 2, 4096, 5, 1});
  b.steady_bubble_ratio = 0.5;
  const auto c = compareRuns(a, b);

  std::vector<std::string> keys;
  for (const auto& r : c.rows)
    keys.push_back(r.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"step_time_ns", "bubble_ratio", "steady_bubble_ratio",
                                            "peak_memory_bytes", "mean_busy_ns", "link_bytes"}));
  EXPECT_EQ(c.runA.id, 1);
  EXPECT_EQ(c.runB.id, 2);

  const auto& step = row(c, "step_time_ns");
  EXPECT_EQ(step.unit, CompareUnit::Duration);
  EXPECT_EQ(step.a, 1000.0);
  EXPECT_EQ(step.b, 4000.0);
  EXPECT_EQ(step.diff(), 3000.0);
  EXPECT_EQ(step.ratio(), 4.0);
  EXPECT_EQ(formatCompareValue(step, step.a), "1.000 µs");
  EXPECT_EQ(formatCompareDiff(step), "+3.000 µs");
  EXPECT_EQ(formatCompareRatio(step), "4.000×");

  // Peak memory is the largest rank's: 300 in A, 2048 in B.
  EXPECT_EQ(row(c, "peak_memory_bytes").a, 300.0);
  EXPECT_EQ(row(c, "peak_memory_bytes").b, 2048.0);
  // Mean busy: (600 + 800) / 2 = 700 and (1000 + 1400) / 2 = 1200.
  EXPECT_EQ(row(c, "mean_busy_ns").a, 700.0);
  EXPECT_EQ(row(c, "mean_busy_ns").b, 1200.0);
  // Bytes over all links: 1000 + 24 and 1000 + 24 + 4096.
  EXPECT_EQ(row(c, "link_bytes").a, 1024.0);
  EXPECT_EQ(row(c, "link_bytes").b, 5120.0);
  EXPECT_EQ(formatCompareValue(row(c, "link_bytes"), 5120.0), "5.00 KiB");
  EXPECT_EQ(formatCompareDiff(row(c, "link_bytes")), "+4.00 KiB");
}

TEST(RunComparison, RatioDifferencesAreInPercentagePoints) {
  const auto c = compareRuns(analysis(1, 1000, 0.25, 1, 1), analysis(2, 500, 0.40, 1, 1));
  const auto& bubble = row(c, "bubble_ratio");
  EXPECT_NEAR(*bubble.diff(), 0.15, 1e-12);
  EXPECT_EQ(formatCompareValue(bubble, bubble.a), "25.00 %");
  EXPECT_EQ(formatCompareDiff(bubble), "+15.00 points");
  EXPECT_EQ(formatCompareRatio(bubble), "1.600×");
  const auto& step = row(c, "step_time_ns");
  EXPECT_EQ(formatCompareDiff(step), "-500 ns");
  EXPECT_EQ(formatCompareRatio(step), "0.500×");
}

TEST(RunComparison, MissingAndZeroValuesGiveNoDiffOrRatio) {
  RunAnalysis a = analysis(1, 1000, 0.0, 0, 0);
  RunAnalysis b = analysis(2, 1000, 0.0, 0, 0);
  a.step_time_ns.reset();  // A has no compute ops
  b.steady_bubble_ratio = 0.3;
  for (auto& r : a.ranks)
    r.peak_memory_bytes.reset();
  b.links.clear();
  const auto c = compareRuns(a, b);

  const auto& step = row(c, "step_time_ns");
  EXPECT_FALSE(step.a);
  EXPECT_FALSE(step.diff());
  EXPECT_FALSE(step.ratio());
  EXPECT_EQ(formatCompareValue(step, step.a), "-");
  EXPECT_EQ(formatCompareDiff(step), "-");
  EXPECT_EQ(formatCompareRatio(step), "-");
  EXPECT_FALSE(row(c, "steady_bubble_ratio").diff());  // A has under 3 steps
  EXPECT_FALSE(row(c, "peak_memory_bytes").a);         // A recorded no memory

  // Both bubbles zero: the difference is zero, the ratio undefined (not 1, not infinite).
  const auto& bubble = row(c, "bubble_ratio");
  EXPECT_EQ(bubble.diff(), 0.0);
  EXPECT_FALSE(bubble.ratio());
  EXPECT_EQ(formatCompareDiff(bubble), "0.00 points");
  // Busy zero in A, zero in B: "0 ns", no ratio.
  EXPECT_EQ(formatCompareDiff(row(c, "mean_busy_ns")), "0 ns");
  // No links in B: zero bytes (a value, not missing), the ratio 0.
  EXPECT_EQ(row(c, "link_bytes").b, 0.0);
  EXPECT_EQ(row(c, "link_bytes").ratio(), 0.0);
  EXPECT_EQ(formatCompareDiff(row(c, "link_bytes")), "-1.00 KiB");
}

TEST(RunComparison, MetricsUnionWithThroughputFirst) {
  RunAnalysis a = analysis(1, 1000, 0.1, 1, 1);
  RunAnalysis b = analysis(2, 1000, 0.1, 1, 1);
  a.metrics = {{"loss", 2.0}, {"samples_per_s", 100.0}};
  b.metrics = {{"loss", 1.5}, {"grad_norm", 3.0}, {"samples_per_s", 125.0}};
  const auto c = compareRuns(a, b);
  ASSERT_EQ(c.rows.size(), 9u);
  EXPECT_EQ(c.rows[3].key, "metric.samples_per_s");
  EXPECT_EQ(c.rows[3].label, "throughput (samples_per_s)");
  EXPECT_EQ(c.rows[3].unit, CompareUnit::Rate);
  EXPECT_EQ(formatCompareValue(c.rows[3], c.rows[3].b), "125 /s");
  EXPECT_EQ(formatCompareDiff(c.rows[3]), "+25 /s");
  EXPECT_EQ(formatCompareRatio(c.rows[3]), "1.250×");
  // Then the other metrics by name, each once; grad_norm only in B.
  EXPECT_EQ(c.rows[7].key, "metric.grad_norm");
  EXPECT_FALSE(c.rows[7].a);
  EXPECT_EQ(c.rows[7].b, 3.0);
  EXPECT_EQ(c.rows[8].key, "metric.loss");
  EXPECT_EQ(formatCompareDiff(c.rows[8]), "-0.5");
  EXPECT_EQ(formatCompareRatio(c.rows[8]), "0.750×");
}

TEST(RunComparison, WhatDiffersListsOnlyChangedKnobsInOrder) {
  RunAnalysis a = analysis(1, 1000, 0.1, 1, 1);
  RunAnalysis b = analysis(2, 1000, 0.1, 1, 1);
  a.run.config_json =
      R"({"schedule":"1f1b","stages":4,"microbatches":8,"act_mb":0,"link_gbps":0,"steps":1})";
  b.run.config_json = R"({"schedule":"1f1b","stages":4,"microbatches":8,"act_mb":1,"link_gbps":10,)"
                      R"("recompute":true,"steps":1})";
  const auto c = compareRuns(a, b);
  ASSERT_EQ(c.differences.size(), 3u);
  EXPECT_EQ(c.differences[0].key, "recompute");  // only B has it: placed in the fixed order
  EXPECT_FALSE(c.differences[0].a);
  EXPECT_EQ(c.differences[0].b, "on");
  EXPECT_EQ(c.differences[1].key, "act_mb");
  EXPECT_EQ(c.differences[1].a, "0 MiB");
  EXPECT_EQ(c.differences[1].b, "1 MiB");
  EXPECT_EQ(c.differences[2].key, "link_gbps");
  EXPECT_EQ(c.differences[2].a, "free");
  EXPECT_EQ(c.differences[2].b, "10 Gb/s");

  const auto same = compareRuns(a, a);
  EXPECT_TRUE(same.differences.empty());
  EXPECT_NE(comparisonText(same).find("what differs: nothing in the runs' configs"),
            std::string::npos);
}

TEST(RunComparison, TextAlignsColumnsAndJsonParsesBack) {
  RunAnalysis a = analysis(1, 5'700'000, 0.25, 1, 1);
  RunAnalysis b = analysis(2, 45'100'000, 0.30, 1, 1);
  a.run.config_json = R"({"schedule":"1f1b","link_gbps":0})";
  b.run.config_json = R"({"schedule":"1f1b","link_gbps":10})";
  auto c = compareRuns(a, b);
  c.originA = "/tmp/x/a.sqlite";
  const std::string text = comparisonText(c);
  EXPECT_NE(text.find("A  run 1 \"run1\" (a.sqlite)  source sim  schedule -\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("step time               5.700 ms  45.100 ms    +39.400 ms  7.912×\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("link                    free      10 Gb/s\n"), std::string::npos) << text;

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const std::string json = comparisonJson(c);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(int64_t(doc["a"]["id"]), 1);
  EXPECT_EQ(std::string_view(doc["a"]["origin"]), "/tmp/x/a.sqlite");
  EXPECT_TRUE(doc["b"]["origin"].is_null());
  simdjson::dom::element step = doc["rows"].at(0);
  EXPECT_EQ(std::string_view(step["key"]), "step_time_ns");
  EXPECT_EQ(std::string_view(step["unit"]), "ns");
  EXPECT_DOUBLE_EQ(double(step["diff"]), 39'400'000.0);
  simdjson::dom::element bubble = doc["rows"].at(1);
  EXPECT_NEAR(double(bubble["diff_points"]), 5.0, 1e-9);
  EXPECT_TRUE(doc["rows"].at(2)["ratio"].is_null());  // no steady bubble in either
  EXPECT_EQ(std::string_view(doc["differences"].at(0)["key"]), "link_gbps");
  EXPECT_EQ(std::string_view(doc["differences"].at(0)["b"]), "10 Gb/s");
}

}  // namespace
}  // namespace ps::trace
