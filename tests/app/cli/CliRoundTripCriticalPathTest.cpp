// Issue 31 §1: the critical path of an imported run equals the step span, as it does on the
// simulated run it came from. A sim run (slow links, a slower last rank, so the path crosses
// transfers and the imbalance) exported with `export chrome` and imported back with
// `import kineto`: every step's path spans its step within 1 µs and has the sim's length.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/StepGraph.h"
#include "trace/store/TraceReader.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;

trace::RunTrace load(const std::string& db) {
  auto run = trace::loadRunFromFile(db, std::nullopt);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : trace::RunTrace{};
}

// Per step, the critical path's length.
std::vector<std::int64_t> pathLengths(const trace::RunTrace& run) {
  const trace::StepGraph graph(run);
  std::vector<std::int64_t> out;
  for (std::size_t k = 0; k < graph.steps().size(); ++k) {
    const auto path = trace::criticalPath(graph, k);
    EXPECT_TRUE(path.has_value()) << "step " << k;
    const std::int64_t length = path ? path->lengthNs : 0;
    EXPECT_NEAR(length, graph.extent(k).span(), 1000) << "step " << k;
    out.push_back(length);
  }
  return out;
}

void expectRoundTripPathsSpanSteps(std::vector<std::string> simArgs, std::size_t steps) {
  TempDir dir;
  const std::string db = dir.file("sim.sqlite"), json = dir.file("sim.json"),
                    back = dir.file("back.sqlite");
  simArgs.insert(simArgs.begin(), "sim");
  simArgs.insert(simArgs.end(), {"--db", db});
  auto r = cli(simArgs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli({"export", "chrome", db, "--out", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli({"import", "kineto", json, "--db", back});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto simulated = pathLengths(load(db));
  const auto imported = pathLengths(load(back));
  ASSERT_EQ(imported.size(), steps);
  EXPECT_EQ(imported, simulated);
}

TEST(CliRoundTripCriticalPath, Sim1f1bWithSlowLinksAndASlowRank) {
  expectRoundTripPathsSpanSteps({"--preset", "1f1b", "--steps", "3", "--link-gbps", "10",
                                 "--link-latency-us", "50", "--rank-speed", "1,1,1,0.7"},
                                3);
}

TEST(CliRoundTripCriticalPath, SimZbH1WithoutAnOptimizerBarrier) {
  expectRoundTripPathsSpanSteps({"--preset", "zb-h1", "--steps", "2", "--link-gbps", "10",
                                 "--link-latency-us", "50", "--optimizer-sync", "none"},
                                2);
}

TEST(CliRoundTripCriticalPath, SimInterleavedAndDataParallel) {
  expectRoundTripPathsSpanSteps(
      {"--preset", "interleaved-1f1b", "--chunks", "2", "--steps", "2", "--link-gbps", "10"}, 2);
  expectRoundTripPathsSpanSteps(
      {"--preset", "1f1b", "--dp", "2", "--steps", "2", "--link-gbps", "10"}, 2);
}

}  // namespace
}  // namespace ps
