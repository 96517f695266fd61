// --rank-speed on the cpu backend (runtime/exec/ComputeStretch): the stretch each rank gets, the
// wait on a clock, and a real run whose slowed rank's compute ops last many times the others'
// and whose config says how it was done.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/exec/ComputeStretch.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

CostModel withSpeeds(const std::vector<double>& speeds) {
  CostModel cost;
  for (double s : speeds) {
    RankCost r;
    r.speed = s;
    cost.ranks.push_back(r);
  }
  return cost;
}

TEST(ComputeStretch, EachRankIsStretchedToTheFastestRanksSpeed) {
  EXPECT_EQ(computeStretchOf(withSpeeds({1, 1, 0.5, 1}), 4), (std::vector<double>{1, 1, 2, 1}));
  EXPECT_EQ(computeStretchOf(withSpeeds({2, 1}), 2), (std::vector<double>{1, 2}));
  // Ranks the cost model does not list run at speed 1.
  EXPECT_EQ(computeStretchOf(withSpeeds({0.25}), 2), (std::vector<double>{4, 1}));
  EXPECT_TRUE(computeStretchOf(withSpeeds({3, 3, 3}), 3).empty()) << "all alike: nothing to do";
  EXPECT_TRUE(computeStretchOf(CostModel{}, 4).empty());
}

TEST(ComputeStretch, WaitsOnTheClockUntilTheStretchedEnd) {
  std::int64_t t = 1000;
  int reads = 0;
  const auto clock = [&] {
    ++reads;
    return t += 500;  // each read, half a µs later
  };
  // Took 1000 ns from 0; × 3 -> stops at the first read at or after 3000.
  EXPECT_EQ(stretchCompute(0, 1000, 3.0, clock), 3000);
  EXPECT_EQ(reads, 4);
  reads = 0;
  EXPECT_EQ(stretchCompute(0, 1000, 1.0, clock), 1000) << "no stretch: the measured end";
  EXPECT_EQ(stretchCompute(500, 500, 4.0, clock), 500) << "an op of no time stays one";
  EXPECT_EQ(reads, 0);
}

std::int64_t medianForward(const trace::RunTrace& run, int rank) {
  const trace::OpColumns& c = run.ranks[rank].lane(trace::Lane::Compute);
  std::vector<std::int64_t> d;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c.kind[i] == trace::OpKind::F) d.push_back(c.end[i] - c.start[i]);
  std::sort(d.begin(), d.end());
  return d.empty() ? 0 : d[d.size() / 2];
}

TEST(ComputeStretch, TheCpuBackendStretchesASlowRanksComputeAndSaysSo) {
  test::TempDir dir;
  const std::string db = dir.file("slow.sqlite");
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, 4, 4, 3);
  r.exec.model.hidden = 64;  // forwards of some µs, so that a tenfold stretch is plain
  r.exec.model.seq = 16;
  r.spec.rankSpeed = {1, 1, 0.1, 1};
  auto result = runPlan(r, {db});
  ASSERT_TRUE(result.ok()) << result.error();
  ASSERT_EQ(result->status, trace::RunStatus::Complete) << result->message;
  result->store.reset();
  auto run = trace::loadRunFromFile(db, result->runId);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_THAT(run->info.config_json,
              HasSubstr("\"rank_speed_applied\":\"stretched compute to max(speed)/speed of its "
                        "measured time\",\"compute_stretch\":[1,1,10,1]"));
  // Ten times the measured work: far beyond what noise does to a median of 12 forwards.
  const std::int64_t slow = medianForward(*run, 2);
  for (int rank : {0, 1, 3})
    EXPECT_GT(slow, 4 * medianForward(*run, rank)) << "rank " << rank;
}

}  // namespace
}  // namespace ps::runtime
