#include "trace/export/ChromeTraceExport.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"

namespace ps::trace {
namespace {

struct Parsed {
  std::int64_t complete = 0, flowStarts = 0, flowEnds = 0, counters = 0;
  std::set<std::int64_t> startIds, endIds;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<double, double>>> slices;
  std::map<std::int64_t, std::string> processNames;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> threadNames;
};

Parsed parse(const std::string& json) {
  Parsed p;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(json);
  EXPECT_EQ(std::string_view(doc["displayTimeUnit"]), "ns");
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    const std::string_view ph = e["ph"];
    const std::int64_t pid = e["pid"];
    if (ph == "X") {
      ++p.complete;
      const double ts = e["ts"], dur = e["dur"];
      EXPECT_GE(dur, 0.0);
      p.slices[{pid, e["tid"].get_int64()}].push_back({ts, ts + dur});
    } else if (ph == "s") {
      ++p.flowStarts;
      p.startIds.insert(e["id"].get_int64());
    } else if (ph == "f") {
      ++p.flowEnds;
      EXPECT_EQ(std::string_view(e["bp"]), "e");
      p.endIds.insert(e["id"].get_int64());
    } else if (ph == "C") {
      ++p.counters;
    } else if (ph == "M" && std::string_view(e["name"]) == "process_name") {
      p.processNames[pid] = std::string(std::string_view(e["args"]["name"]));
    } else if (ph == "M" && std::string_view(e["name"]) == "thread_name") {
      p.threadNames[{pid, e["tid"].get_int64()}] = std::string(std::string_view(e["args"]["name"]));
    }
  }
  return p;
}

void expectNoOverlapPerThread(const Parsed& p) {
  for (auto [key, slices] : p.slices) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i)
      EXPECT_LE(slices[i - 1].second, slices[i].first + 1e-9)
          << "pid " << key.first << " tid " << key.second << " slice " << i;
  }
}

TEST(ChromeTraceExportTest, GpipeRunHasOneProcessPerRankFlowsAndNoOverlaps) {
  SyntheticGpipe g;  // 4 ranks, 8 micro-batches, sends of zero duration
  const RunTrace run = test::roundTrip(syntheticGpipeHeader(g), syntheticGpipeStep(g, 0));
  std::ostringstream out;
  const auto stats = writeChromeTrace(run, out);
  const Parsed p = parse(out.str());
  EXPECT_EQ(p.complete, static_cast<std::int64_t>(run.opCount()));
  EXPECT_EQ(stats.events, p.complete);
  // 3 links x 8 micro-batches x (activation + gradient).
  EXPECT_EQ(stats.flows, 48);
  EXPECT_EQ(p.flowStarts, 48);
  EXPECT_EQ(p.flowEnds, 48);
  EXPECT_EQ(p.startIds, p.endIds);
  ASSERT_EQ(p.processNames.size(), 4U);
  EXPECT_EQ(p.processNames.at(0).rfind("rank 0", 0), 0U);
  EXPECT_EQ(p.threadNames.at({1, 0}), "compute");
  EXPECT_GT(p.counters, 0);
  expectNoOverlapPerThread(p);
}

TEST(ChromeTraceExportTest, OverlappingOpsOfOneLaneGoToExtraRows) {
  RunHeader header = test::simpleHeader(1);
  TraceBatch batch;
  batch.ops.push_back(test::compute(0, OpKind::F, 0, 0, 1000));
  batch.ops.push_back(test::compute(0, OpKind::F, 1, 500, 1500));   // overlaps the first
  batch.ops.push_back(test::compute(0, OpKind::B, 0, 1200, 1400));  // overlaps the second
  batch.ops.push_back(test::compute(0, OpKind::B, 1, 1500, 2001));
  const RunTrace run = test::roundTrip(header, batch);
  std::ostringstream out;
  const auto stats = writeChromeTrace(run, out);
  const Parsed p = parse(out.str());
  EXPECT_EQ(stats.threads, 2);
  EXPECT_EQ(p.threadNames.at({0, 1}), "compute #2");
  EXPECT_EQ(p.slices.at({0, 0}).size(), 3U);
  EXPECT_EQ(p.slices.at({0, 1}).size(), 1U);
  expectNoOverlapPerThread(p);
  // Nanosecond precision survives the microsecond unit.
  EXPECT_NE(out.str().find("\"dur\":0.501"), std::string::npos);
}

TEST(ChromeTraceExportTest, UnwritablePathIsAnErrorAndLeavesNoFile) {
  SyntheticGpipe g;
  const RunTrace run = test::roundTrip(syntheticGpipeHeader(g), syntheticGpipeStep(g, 0));
  auto bad = writeChromeTraceFile(run, "/nonexistent-dir/out.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("/nonexistent-dir/out.json"), std::string::npos);
  test::TempDir dir;
  auto good = writeChromeTraceFile(run, dir.file("run.json"));
  ASSERT_TRUE(good.ok()) << good.error();
  EXPECT_TRUE(std::filesystem::exists(dir.file("run.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.json.tmp")));
}

}  // namespace
}  // namespace ps::trace
