// I-TiMePReSt's intermediate weights (--weight-versions blend, issue 35 item 7): PipeDream's stash
// kept, but each backward runs on W + e^(−λ·d)·(W_stash − W), the forward's stashed weights
// counting for less the more updates d lie between: λ = 0 is the stash exactly, a large λ the
// live weights (V-TiMePReSt's `latest`), λ = 1 neither. Its memory is the stash's.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

std::vector<double> losses(const std::string& versions, float decay) {
  return test::tinySgdLosses(test::asyncPipedream(4, versions),
                             [&](CpuRunOptions& o) { o.stashBlendDecay = decay; });
}

double largestGap(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double gap = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k)
    gap = std::max(gap, std::abs(a[k] - b[k]) / std::max(1e-9, std::abs(b[k])));
  return gap;
}

TEST(StashBlend, RunsBetweenTheStashAndTheLiveWeights) {
  const auto stash = losses("stash", 1), latest = losses("latest", 1);
  ASSERT_EQ(stash.size(), 6u);
  ASSERT_GT(largestGap(latest, stash), 1e-4) << "the live weights must differ from the stash";
  EXPECT_LE(largestGap(losses("blend", 0), stash), 1e-6);    // e^0: the stash
  EXPECT_LE(largestGap(losses("blend", 40), latest), 1e-5);  // e^-40: the live weights
  const auto blend = losses("blend", 1);
  EXPECT_GT(largestGap(blend, stash), 1e-5);
  EXPECT_GT(largestGap(blend, latest), 1e-5);
  EXPECT_LT(blend.back(), blend.front());
}

TEST(StashBlend, KeepsTheStashInMemory) {
  const auto peak = [](const std::string& versions) {
    auto built = buildPlan(test::asyncPipedream(4, versions));
    EXPECT_TRUE(built.ok()) << built.error();
    auto sim = simulate(built->plan, built->graph, built->cost);
    EXPECT_TRUE(sim.ok()) << sim.error();
    return sim.ok() ? sim->peakMemory[0] : -1;
  };
  EXPECT_EQ(peak("blend"), peak("stash"));
  EXPECT_GT(peak("blend"), peak("latest"));
}

}  // namespace
}  // namespace ps::runtime
