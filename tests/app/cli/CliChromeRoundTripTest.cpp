// PipeScope's own Chrome export imports back with `import kineto` (issue 31, acceptance 1):
// every op comes back on its rank with its kind, stage, micro-batch, step, bytes and peer, at the
// same start and end (the export writes µs with three decimals: exact), and each rank's memory
// samples come back on that rank. Before, the import found "nothing to import".

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

// (rank, kind, stage, micro-batch, step) names an op of a recorded or simulated run uniquely.
using OpKey = std::tuple<int, int, int, int, int>;
struct OpValue {
  std::int64_t start, end, bytes;
  int peer;
  bool operator==(const OpValue&) const = default;
};

std::map<OpKey, OpValue> opsOf(const trace::RunTrace& run) {
  std::map<OpKey, OpValue> out;
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (const auto& lane : run.ranks[r].lanes)
      for (std::size_t i = 0; i < lane.size(); ++i) {
        const OpKey key{static_cast<int>(r), static_cast<int>(lane.kind[i]), lane.stage[i],
                        lane.microbatch[i], lane.step[i]};
        EXPECT_TRUE(
            out.emplace(key, OpValue{lane.start[i], lane.end[i], lane.bytes[i], lane.peer[i]})
                .second)
            << "op key not unique: rank " << r << " kind " << static_cast<int>(lane.kind[i]);
      }
  return out;
}

trace::RunTrace load(const std::string& db) {
  auto run = trace::loadRunFromFile(db, std::nullopt);
  EXPECT_TRUE(run.ok()) << run.error();
  return run.ok() ? std::move(*run) : trace::RunTrace{};
}

// Records (sim or cpu), exports, imports back, and compares the two runs op by op.
void expectRoundTrip(const std::vector<std::string>& recordArgs) {
  TempDir dir;
  const std::string db = dir.file("run.sqlite"), json = dir.file("run.json"),
                    back = dir.file("back.sqlite");
  std::vector<std::string> args = recordArgs;
  args.insert(args.end(), {"--db", db});
  auto r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli({"export", "chrome", db, "--out", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli({"import", "kineto", json, "--db", back});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("share its clock: no clock offsets fitted"));

  const trace::RunTrace a = load(db), b = load(back);
  ASSERT_EQ(b.ranks.size(), a.ranks.size());
  EXPECT_EQ(b.info.num_ranks, a.info.num_ranks);
  EXPECT_EQ(b.info.num_microbatches, a.info.num_microbatches);
  EXPECT_EQ(b.opCount(), a.opCount());
  std::map<int, int> kindsA, kindsB;
  int maxStageA = -1, maxStageB = -1, maxStepA = -1, maxStepB = -1;
  const auto opsA = opsOf(a), opsB = opsOf(b);
  for (const auto& [key, v] : opsA) {
    ++kindsA[std::get<1>(key)];
    maxStageA = std::max(maxStageA, std::get<2>(key));
    maxStepA = std::max(maxStepA, std::get<4>(key));
  }
  for (const auto& [key, v] : opsB) {
    ++kindsB[std::get<1>(key)];
    maxStageB = std::max(maxStageB, std::get<2>(key));
    maxStepB = std::max(maxStepB, std::get<4>(key));
  }
  EXPECT_EQ(kindsB, kindsA);
  EXPECT_EQ(maxStageB, maxStageA);
  EXPECT_EQ(maxStepB, maxStepA);
  ASSERT_EQ(opsB.size(), opsA.size());
  int mismatched = 0;
  for (const auto& [key, v] : opsA) {
    const auto it = opsB.find(key);
    if (it == opsB.end() || !(it->second == v)) ++mismatched;
    if (it == opsB.end()) continue;
    EXPECT_EQ(it->second.start, v.start) << "rank " << std::get<0>(key);
    EXPECT_EQ(it->second.end, v.end);
    EXPECT_EQ(it->second.bytes, v.bytes);
    EXPECT_EQ(it->second.peer, v.peer);
    if (mismatched > 5) break;
  }
  EXPECT_EQ(mismatched, 0);
  for (std::size_t rank = 0; rank < a.ranks.size(); ++rank) {
    EXPECT_EQ(b.ranks[rank].memory.t, a.ranks[rank].memory.t) << "rank " << rank;
    EXPECT_EQ(b.ranks[rank].memory.bytes, a.ranks[rank].memory.bytes) << "rank " << rank;
  }
}

TEST(CliChromeRoundTrip, Sim1f1bComesBackOpForOp) {
  expectRoundTrip({"sim", "--preset", "1f1b", "--steps", "6"});
}

TEST(CliChromeRoundTrip, SimZbH1ComesBackWithItsSplitBackwards) {
  expectRoundTrip({"sim", "--preset", "zb-h1", "--steps", "2"});
}

TEST(CliChromeRoundTrip, SimInterleavedComesBackWithItsChunks) {
  expectRoundTrip({"sim", "--preset", "interleaved-1f1b", "--chunks", "2", "--steps", "2"});
}

TEST(CliChromeRoundTrip, Cpu1f1bComesBackOpForOp) {
  expectRoundTrip({"run", "--preset", "1f1b", "--backend", "cpu", "--steps", "6"});
}

}  // namespace
}  // namespace ps
