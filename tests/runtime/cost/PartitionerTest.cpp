#include "runtime/cost/Partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace ps::runtime {
namespace {

CostModel layersOf(const std::vector<double>& workNs) {
  CostModel m;
  for (double w : workNs) {
    LayerCost c;
    c.fwdNs = w / 3;
    c.inputGradNs = w / 3;
    c.weightGradNs = w / 3;
    m.layers.push_back(c);
  }
  return m;
}

// L layers of 1..maxWork ns, up to 49 activation and 19 parameter bytes each.
CostModel randomLayers(std::mt19937& rng, int L, int maxWork) {
  std::vector<double> work;
  for (int l = 0; l < L; ++l)
    work.push_back(1 + rng() % maxWork);
  CostModel m = layersOf(work);
  for (auto& c : m.layers) {
    c.actBytes = rng() % 50;
    c.paramBytes = rng() % 20;
  }
  return m;
}

struct Brute {
  double best = INFINITY;
};

// Calls visit(starts) for every cut of L layers into S non-empty stages: starts[s] is stage s's
// first layer, starts[S] = L.
template <class Visit>
void forEachCut(int L, int S, const Visit& visit, std::vector<int> starts = {0}) {
  if (static_cast<int>(starts.size()) == S) {
    starts.push_back(L);
    visit(starts);
    return;
  }
  for (int b = starts.back() + 1; b <= L - (S - static_cast<int>(starts.size())); ++b) {
    starts.push_back(b);
    forEachCut(L, S, visit, starts);
    starts.pop_back();
  }
}

// Layers [a, b) as one stage holding `inFlight` micro-batches: (F + I + W time, memory).
std::pair<double, double> stageTotals(const CostModel& m, int a, int b, int inFlight) {
  double work = 0, bytes = 0;
  for (int l = a; l < b; ++l) {
    const auto& c = m.layers[l];
    work += c.fwdNs + c.inputGradNs + c.weightGradNs;
    bytes += c.paramBytes * m.stateBytesPerParamByte + double(c.actBytes) * inFlight;
  }
  return {work, bytes};
}

// Every cut: the least max stage time, skipping cuts over memory.
void bruteForce(const CostModel& m, const std::vector<int>& rankOf,
                const std::vector<int>& inFlight, int S, Brute& out) {
  forEachCut(static_cast<int>(m.layers.size()), S, [&](const std::vector<int>& starts) {
    double worst = 0;
    for (int s = 0; s < S; ++s) {
      const auto [work, bytes] = stageTotals(m, starts[s], starts[s + 1], inFlight[s]);
      const auto cap = m.capacityOf(rankOf[s]);
      if (cap && bytes > double(*cap)) return;
      worst = std::max(worst, work / m.speedOf(rankOf[s]));
    }
    out.best = std::min(out.best, worst);
  });
}

TEST(PartitionerTest, MatchesBruteForceOnRandomCases) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 300; ++trial) {
    const int L = 1 + static_cast<int>(rng() % 9);
    const int S = 1 + static_cast<int>(rng() % std::min(L, 4));
    CostModel m = randomLayers(rng, L, 100);
    const bool withMemory = trial % 2 == 1;
    const int P = 1 + static_cast<int>(rng() % S);  // may hold several stages per rank
    std::vector<int> rankOf;
    for (int s = 0; s < S; ++s)
      rankOf.push_back(s % P);
    std::vector<int> stagesOn(P, 0);
    for (int r : rankOf)
      ++stagesOn[r];
    for (int r = 0; r < P; ++r) {
      RankCost rc;
      rc.speed = 0.5 + (rng() % 4) * 0.5;
      // Brute force applies each rank's cap per stage, as the equal-share rule does for one
      // stage per rank; give multi-stage ranks a cap that scales with their stage count.
      if (withMemory) rc.memoryCapacityBytes = (150 + rng() % 300) * stagesOn[r];
      m.ranks.push_back(rc);
    }
    std::vector<int> inFlight;
    for (int s = 0; s < S; ++s)
      inFlight.push_back(1 + rng() % 4);

    // The brute force checks each stage against its equal share of its rank's capacity.
    CostModel shares = m;
    for (int r = 0; r < P; ++r)
      if (shares.ranks[r].memoryCapacityBytes) *shares.ranks[r].memoryCapacityBytes /= stagesOn[r];
    Brute brute;
    bruteForce(shares, rankOf, inFlight, S, brute);

    auto got = partitionLayers(m, {S, rankOf, inFlight, true});
    if (std::isinf(brute.best)) {
      EXPECT_FALSE(got) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(got) << "trial " << trial << ": " << got.error();
    EXPECT_NEAR(got->maxStageNs, brute.best, 1e-9) << "trial " << trial;
    ASSERT_EQ(got->boundaries.size(), static_cast<std::size_t>(S - 1));
    EXPECT_NEAR(*std::max_element(got->stageNs.begin(), got->stageNs.end()), got->maxStageNs, 1e-9);
    for (int s = 0; s < S; ++s) {
      const auto cap = shares.capacityOf(rankOf[s]);
      if (cap) {
        EXPECT_LE(got->stageBytes[s], *cap) << "trial " << trial << " stage " << s;
      }
    }
  }
}

// Every cut of L layers into S stages, as (slowest stage time, largest stage memory).
void everyCut(const CostModel& m, const std::vector<int>& inFlight, int S,
              std::vector<std::pair<double, double>>& out) {
  forEachCut(static_cast<int>(m.layers.size()), S, [&](const std::vector<int>& starts) {
    double slowest = 0, heaviest = 0;
    for (int s = 0; s < S; ++s) {
      const auto [work, bytes] = stageTotals(m, starts[s], starts[s + 1], inFlight[s]);
      slowest = std::max(slowest, work);
      heaviest = std::max(heaviest, bytes);
    }
    out.emplace_back(slowest, heaviest);
  });
}

// DawnPiper's objective: of the cuts within the slack of the fastest, the least largest memory.
TEST(PartitionerTest, TheMemoryObjectiveMatchesBruteForceWithinTheSlack) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 200; ++trial) {
    const int L = 2 + static_cast<int>(rng() % 8);
    const int S = 2 + static_cast<int>(rng() % std::min(L - 1, 3));
    CostModel m = randomLayers(rng, L, 20);
    std::vector<int> inFlight;
    for (int s = 0; s < S; ++s)
      inFlight.push_back(S - s);  // 1F1B's p − s
    const double slack = (trial % 3) * 0.25;
    std::vector<std::pair<double, double>> cuts;
    everyCut(m, inFlight, S, cuts);
    double fastest = INFINITY, lightest = INFINITY;
    for (const auto& [t, mem] : cuts)
      fastest = std::min(fastest, t);
    for (const auto& [t, mem] : cuts)
      if (t <= fastest * (1 + slack) + 1e-9) lightest = std::min(lightest, mem);
    PartitionRequest req{S, {}, inFlight, true};
    req.objective = PartitionObjective::Memory;
    req.timeSlack = slack;
    auto got = partitionLayers(m, req);
    ASSERT_TRUE(got) << got.error();
    EXPECT_LE(got->maxStageNs, fastest * (1 + slack) + 1e-9) << "trial " << trial;
    EXPECT_NEAR(
        static_cast<double>(*std::max_element(got->stageBytes.begin(), got->stageBytes.end())),
        lightest, 0.5)
        << "trial " << trial;
  }
}

// 30 layers on 4 stages under 1F1B: the time cut leaves its short stage last, the memory cut
// gives it to the first stage (four micro-batches in flight), as fast.
TEST(PartitionerTest, TheMemoryObjectiveGivesTheShortStageToTheHeaviestHolder) {
  CostModel m = layersOf(std::vector<double>(30, 300));
  for (auto& c : m.layers) {
    c.actBytes = 4;
    c.paramBytes = 1;
  }
  PartitionRequest req{4, {}, {4, 3, 2, 1}, true};
  auto time = partitionLayers(m, req);
  ASSERT_TRUE(time) << time.error();
  req.objective = PartitionObjective::Memory;
  auto memory = partitionLayers(m, req);
  ASSERT_TRUE(memory) << memory.error();
  EXPECT_DOUBLE_EQ(memory->maxStageNs, time->maxStageNs);
  EXPECT_LT(*std::max_element(memory->stageBytes.begin(), memory->stageBytes.end()),
            *std::max_element(time->stageBytes.begin(), time->stageBytes.end()));
  EXPECT_LT(memory->boundaries[0], time->boundaries[0]) << "stage 0 takes fewer layers";
}

TEST(PartitionerTest, HeterogeneousSpeedsShiftLayersToTheFastRank) {
  CostModel m = layersOf({30, 30, 30, 30});
  auto even = partitionLayers(m, {2, {}, {}, true});
  ASSERT_TRUE(even) << even.error();
  EXPECT_EQ(even->boundaries, std::vector<int>{2});
  EXPECT_DOUBLE_EQ(even->maxStageNs, 60);

  m.ranks = {RankCost{1.0, {}}, RankCost{3.0, {}}};  // rank 1 three times as fast
  auto hetero = partitionLayers(m, {2, {}, {}, true});
  ASSERT_TRUE(hetero) << hetero.error();
  EXPECT_EQ(hetero->boundaries, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(hetero->maxStageNs, 30);
  EXPECT_DOUBLE_EQ(hetero->stageNs[1], 30);
}

TEST(PartitionerTest, MemoryCapMovesTheCut) {
  CostModel m = layersOf({10, 10, 10, 10});
  for (auto& c : m.layers)
    c.actBytes = 100;
  m.stateBytesPerParamByte = 4;
  // Stage 0 holds 3 in-flight micro-batches, stage 1 one (1F1B with p = 2 would say 2 and 1).
  m.ranks = {RankCost{1.0, 300}, RankCost{1.0, {}}};
  auto r = partitionLayers(m, {2, {0, 1}, {3, 1}, true});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->boundaries, std::vector<int>{1});
  EXPECT_EQ(r->stageBytes[0], 300);
  auto ignored = partitionLayers(m, {2, {0, 1}, {3, 1}, false});
  ASSERT_TRUE(ignored);
  EXPECT_EQ(ignored->boundaries, std::vector<int>{2});
}

TEST(PartitionerTest, InfeasibleMemoryNamesRankAndShortfall) {
  CostModel m = layersOf({10, 10, 10, 10});
  for (auto& c : m.layers)
    c.paramBytes = 1024 * 1024;  // 4 MiB of state per layer
  m.ranks = {RankCost{1.0, 16ll << 20}, RankCost{1.0, 6ll << 20}};
  auto r = partitionLayers(m, {2, {}, {}, true});
  ASSERT_TRUE(r) << r.error();  // only 3 layers (12 MiB) + 1 layer (4 MiB) fits
  EXPECT_EQ(r->boundaries, std::vector<int>{3});
  // Now rank 1 cannot hold even one layer; the closest cut is still 3 + 1.
  m.ranks[1].memoryCapacityBytes = 3ll << 20;
  r = partitionLayers(m, {2, {}, {}, true});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("rank 1 short by 1.00 MiB"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("stage 1 (layers 3..3) needs 4.00 MiB"), std::string::npos) << r.error();
}

TEST(PartitionerTest, SizeErrors) {
  CostModel m = layersOf({1, 2});
  auto r = partitionLayers(m, {3, {}, {}, true});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("cannot cut 2 layers into 3 stages"), std::string::npos);
  EXPECT_FALSE(partitionLayers(m, {2, {0}, {}, true}));
  EXPECT_FALSE(partitionLayers(m, {0, {}, {}, true}));
}

TEST(PartitionerTest, ParseBoundaries) {
  auto ok = parseBoundaries("3,6,9", 12, 4);
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(*ok, (std::vector<int>{3, 6, 9}));
  auto spaced = parseBoundaries(" 3, 6 ,9", 12, 4);
  ASSERT_TRUE(spaced) << spaced.error();
  auto none = parseBoundaries("", 12, 1);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());

  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c :
       {Case{"3,x,9", "'x' is not a layer number"},
        Case{"3,6",
             "expected 3 values (the first layer of stages 1..3) for 4 "
             "stages, got 2"},
        Case{"3,6,9,10", "got 4"}, Case{"3,3,9", "must be strictly increasing (3 then 3)"},
        Case{"6,3,9", "strictly increasing (6 then 3)"}, Case{"0,6,9", "0 is outside 1..11"},
        Case{"3,6,12", "12 is outside 1..11"}, Case{"3,,9", "'' is not a layer number"},
        Case{"3,6,9,", "'' is not a layer number"}, Case{"", "got 0"}}) {
    auto r = parseBoundaries(c.text, 12, 4);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().rfind("--boundaries '" + std::string(c.text) + "': ", 0), 0u) << r.error();
    EXPECT_NE(r.error().find(c.expect), std::string::npos) << r.error();
  }
}

TEST(PartitionerTest, EvenBoundaries) {
  EXPECT_EQ(evenBoundaries(10, 4), (std::vector<int>{3, 6, 8}));
  EXPECT_EQ(evenBoundaries(8, 4), (std::vector<int>{2, 4, 6}));
  EXPECT_TRUE(evenBoundaries(5, 1).empty());
}

TEST(PartitionerTest, AssignLayersSetsEveryReplica) {
  Plan p;
  p.numStages = 3;
  p.placement = {{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}, {{2, 0, 0}, {1, 1, 1}, {0, 2, 2}}};
  ASSERT_TRUE(assignLayers(p, {2, 5}, 9));
  EXPECT_EQ(p.numLayers, 9);
  for (const auto& replica : p.placement) {
    EXPECT_EQ(replica[0].firstLayer, 0);
    EXPECT_EQ(replica[0].lastLayer, 1);
    EXPECT_EQ(replica[1].firstLayer, 2);
    EXPECT_EQ(replica[1].lastLayer, 4);
    EXPECT_EQ(replica[2].firstLayer, 5);
    EXPECT_EQ(replica[2].lastLayer, 8);
  }
  EXPECT_EQ(p.placement[1][0].rank, 2);  // placement itself untouched
  EXPECT_FALSE(assignLayers(p, {2}, 9));
  EXPECT_FALSE(assignLayers(p, {5, 2}, 9));
  EXPECT_FALSE(assignLayers(p, {2, 9}, 9));
}

}  // namespace
}  // namespace ps::runtime
