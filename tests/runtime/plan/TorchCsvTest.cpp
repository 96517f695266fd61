#include "runtime/plan/TorchCsv.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "runtime/plan/Lowering.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Validator.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/PlanTestUtil.h"

namespace ps::runtime {
namespace {

std::vector<std::string> labels(const std::vector<Action>& program) {
  std::vector<std::string> out;
  for (const auto& a : program)
    out.push_back(actionLabel(a));
  return out;
}

TEST(TorchCsvTest, ParsesComputeOnly1F1B) {
  // Rows may differ in length; an empty cell is an idle slot.
  auto r = parseTorchCsv("0F0,0F1,0B0,0B1\n,1F0,1B0,1F1,1B1\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  const Plan& p = r->plan;
  EXPECT_EQ(r->form, TorchCsvForm::ComputeOnly);
  EXPECT_FALSE(r->legacyEncoding);
  EXPECT_EQ(p.schedule, "custom");
  EXPECT_EQ(p.numRanks, 2);
  EXPECT_EQ(p.numStages, 2);
  EXPECT_EQ(p.chunks, 1);
  EXPECT_EQ(p.numMicrobatches(), 2);
  EXPECT_FALSE(p.splitBackward);
  ASSERT_EQ(p.placement.size(), 1u);
  EXPECT_EQ(p.placement[0][0].rank, 0);
  EXPECT_EQ(p.placement[0][1].rank, 1);
  EXPECT_EQ(labels(p.programs[0]), (std::vector<std::string>{"0F0", "0F1", "0B0", "0B1"}));
  EXPECT_EQ(labels(p.programs[1]), (std::vector<std::string>{"1F0", "1B0", "1F1", "1B1"}));
  EXPECT_EQ(r->rankActions[1].front().cell, 2);
  EXPECT_EQ(r->rankActions[1].front().line, 2);
  auto g = validatePlan(p);
  EXPECT_TRUE(g) << g.error();
}

TEST(TorchCsvTest, AcceptsCrlfQuotesAndSpaces) {
  auto r = parseTorchCsv("\"0F0\", 0B0\r\n1F0,1B0\r\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->plan.numRanks, 2);
  EXPECT_EQ(labels(r->plan.programs[0]), (std::vector<std::string>{"0F0", "0B0"}));
}

TEST(TorchCsvTest, InterleavedPlacementFromForwards) {
  auto r = parseTorchCsv("0F0,2F0,2B0,0B0\n1F0,3F0,3B0,1B0\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->plan.numStages, 4);
  EXPECT_EQ(r->plan.chunks, 2);
  std::vector<int> ranks;
  for (const auto& s : r->plan.placement[0])
    ranks.push_back(s.rank);
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(r->plan.placement[0][3].firstLayer, 3);
  EXPECT_EQ(r->plan.numLayers, 4);
}

TEST(TorchCsvTest, SplitBackwardWithIAndW) {
  auto r = parseTorchCsv("0F0,0I0,0W0\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->plan.splitBackward);
  EXPECT_FALSE(r->legacyEncoding);
  EXPECT_EQ(r->plan.programs[0][1].kind, OpKind::I);
}

TEST(TorchCsvTest, UnknownKindNamesFileLineCellAndExpected) {
  auto r = parseTorchCsv("0F0,0B0\n1F0,,,,2Q1\n", "x.csv");
  ASSERT_FALSE(r);
  EXPECT_EQ(
      r.error().rfind("x.csv:2: cell 5 '2Q1': unknown action kind 'Q' (expected F, B, I, W", 0), 0u)
      << r.error();
}

TEST(TorchCsvTest, MalformedCellsSayWhatWasExpected) {
  struct Case {
    const char* cell;
    const char* expect;
  };
  for (const Case& c :
       {Case{"F0", "expected a stage number"},
        Case{"2F", "expected a micro-batch number after '2F'"},
        Case{"2", "expected an action kind"}, Case{"2F1x", "unexpected 'x' after '2F1'"},
        Case{"99999999999F0", "stage number too large"}, Case{"(0F0;0B0", "expected ')'"},
        Case{"(0F0;0B0)OVERLAP", "expected 'OVERLAP_F_B'"},
        Case{"(0F0)OVERLAP_F_B", "holds two actions"},
        Case{"(0F0;0SEND_F0)OVERLAP_F_B", "only compute actions"}}) {
    auto r = parseTorchCsv(std::string("0F0,") + c.cell + "\n", "y.csv");
    ASSERT_FALSE(r) << c.cell;
    EXPECT_NE(r.error().find("y.csv:1: cell 2 '" + std::string(c.cell) + "': "), std::string::npos)
        << r.error();
    EXPECT_NE(r.error().find(c.expect), std::string::npos) << r.error();
  }
}

TEST(TorchCsvTest, StageComputedOnTwoRanksIsAnError) {
  auto r = parseTorchCsv("0F0,0B0\n0F1,0B1\n", "x.csv");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("x.csv:2: cell 1"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("stage 0 is computed on rank 1 but also on rank 0"), std::string::npos)
      << r.error();
}

TEST(TorchCsvTest, MissingStageAndEmptyFilesAreErrors) {
  auto gap = parseTorchCsv("0F0,0B0\n2F0,2B0\n", "x.csv");
  ASSERT_FALSE(gap);
  EXPECT_NE(gap.error().find("no rank computes stage 1"), std::string::npos) << gap.error();
  auto empty = parseTorchCsv("", "e.csv");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("e.csv: empty file"), std::string::npos);
  auto idle = parseTorchCsv(",,\n0UNSHARD\n", "i.csv");
  ASSERT_FALSE(idle);
  EXPECT_NE(idle.error().find("no compute actions"), std::string::npos);
}

TEST(TorchCsvTest, LegacyEncodingWithBW) {
  auto r = parseTorchCsv("0F0,0BW0\n", "old.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->legacyEncoding);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("older encoding"), std::string::npos);
  EXPECT_EQ(r->plan.programs[0][1].kind, OpKind::B);
  EXPECT_EQ(r->rankActions[0][1].kindName, "B");
}

TEST(TorchCsvTest, LegacyEncodingWithBAndWForOneMicrobatch) {
  auto r = parseTorchCsv("0F0,0B0,0W0\n", "old.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->legacyEncoding);
  EXPECT_TRUE(r->plan.splitBackward);
  EXPECT_EQ(labels(r->plan.programs[0]), (std::vector<std::string>{"0F0", "0I0", "0W0"}));
  EXPECT_TRUE(validatePlan(r->plan));
}

TEST(TorchCsvTest, MixedEncodingsAreAnError) {
  auto r = parseTorchCsv("0F0,0BW0,0F1,0I1,0W1\n", "mix.csv");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("mix.csv:1: cell 2"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("one encoding"), std::string::npos) << r.error();
}

TEST(TorchCsvTest, OverlapCellChainsTwoActions) {
  auto r = parseTorchCsv("0F0,0F1,(0F2;0B0)OVERLAP_F_B,0B1,0B2\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  const auto& prog = r->plan.programs[0];
  ASSERT_EQ(prog.size(), 6u);
  EXPECT_TRUE(prog[2].overlapNext);
  EXPECT_FALSE(prog[3].overlapNext);
  EXPECT_EQ(r->rankActions[0][3].cell, 3);
  EXPECT_EQ(writeTorchCsvComputeOnly(r->plan), "0F0,0F1,(0F2;0B0)OVERLAP_F_B,0B1,0B2\n");
}

TEST(TorchCsvTest, ComputeCommsKeepsCommsWithPeersOutOfThePlan) {
  auto r = parseTorchCsv(
      "0F0,0SEND_F0,0RECV_B0,0B0,0UNSHARD,0REDUCE_GRAD\n1RECV_F0,1F0,1B0,1SEND_B0\n", "c.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->form, TorchCsvForm::ComputeComms);
  EXPECT_EQ(labels(r->plan.programs[0]), (std::vector<std::string>{"0F0", "0B0"}));
  ASSERT_EQ(r->rankActions[0].size(), 6u);
  EXPECT_EQ(r->rankActions[0][1].action.kind, OpKind::SEND_F);
  EXPECT_EQ(r->rankActions[0][1].action.peer, 1);
  EXPECT_EQ(r->rankActions[1][0].action.peer, 0);
  EXPECT_EQ(r->rankActions[1][3].action.peer, 0);
  EXPECT_EQ(r->rankActions[0][4].action.kind, OpKind::OTHER);
  EXPECT_EQ(r->rankActions[0][4].kindName, "UNSHARD");
  EXPECT_EQ(r->rankActions[0][4].action.microbatch, -1);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("2 UNSHARD/RESHARD/REDUCE_GRAD"), std::string::npos);
}

TEST(TorchCsvTest, ComputeOnlyRoundTrip) {
  const Plan plan = test::oneFOneB(4, 6);
  const std::string text = writeTorchCsvComputeOnly(plan);
  auto r = parseTorchCsv(text, "rt.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->plan.programs, plan.programs);
  EXPECT_EQ(r->plan.numStages, plan.numStages);
  EXPECT_EQ(r->plan.numMicrobatches(), plan.numMicrobatches());
  EXPECT_EQ(writeTorchCsvComputeOnly(r->plan), text);
}

TEST(TorchCsvTest, ComputeOnlyRoundTripThroughAFile) {
  test::TempDir dir;
  auto parsed = parseTorchCsv("0F0,,0F1,0I0,0W0,0I1,0W1\n1F0,1I0,1F1,1W0,1I1,1W1\n", "x.csv");
  ASSERT_TRUE(parsed) << parsed.error();
  const std::string path = dir.file("zb.csv");
  ASSERT_TRUE(writeTorchCsvFile(path, writeTorchCsvComputeOnly(parsed->plan)));
  auto back = readTorchCsv(path);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->plan.programs, parsed->plan.programs);
  EXPECT_TRUE(back->plan.splitBackward);
}

TEST(TorchCsvTest, ComputeCommsRoundTripOfALoweredPlan) {
  const Plan plan = test::oneFOneB(3, 4);
  auto graph = buildOpGraph(plan);
  ASSERT_TRUE(graph) << graph.error();
  const auto lowered = lowerCommunication(plan, *graph);
  auto r = parseTorchCsv(writeTorchCsvComms(lowered), "comms.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->form, TorchCsvForm::ComputeComms);
  EXPECT_EQ(r->plan.programs, plan.programs);
  ASSERT_EQ(r->rankActions.size(), lowered.size());
  for (std::size_t rank = 0; rank < lowered.size(); ++rank) {
    std::vector<Action> actions;
    for (const auto& a : r->rankActions[rank])
      actions.push_back(a.action);
    EXPECT_EQ(actions, lowered[rank]) << "rank " << rank;
  }
}

TEST(TorchCsvTest, MissingFileNamesThePath) {
  auto r = readTorchCsv("/nonexistent/dir/p.csv");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("/nonexistent/dir/p.csv"), std::string::npos);
}

TEST(TorchCsvTest, DeadlockingFixtureIsRejectedNamingTheOps) {
  auto r = readTorchCsv(test::sourcePath("tests/runtime/golden/deadlock_p2.csv"));
  ASSERT_TRUE(r) << r.error();
  auto v = validatePlan(r->plan);
  ASSERT_FALSE(v);
  // Rank 0 blocks in 0B0 on 1B0, which rank 1 runs only after 1F1, which needs 0F1 — queued
  // on rank 0 behind 0B0.
  EXPECT_NE(v.error().find("deadlock"), std::string::npos) << v.error();
  EXPECT_NE(v.error().find("0F1"), std::string::npos) << v.error();
  EXPECT_NE(v.error().find("0B0"), std::string::npos) << v.error();
  EXPECT_NE(v.error().find("1B0"), std::string::npos) << v.error();
}

TEST(TorchCsvTest, ExternalZeroBubbleTrace) {
  const char* dir = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  if (!dir || !*dir) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES is not set";
  const auto path = std::filesystem::path(dir) / "torch-csv" / "zb1p_2rank_2stagep_compute.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
  auto r = readTorchCsv(path.string());
  ASSERT_TRUE(r) << r.error();
  const Plan& p = r->plan;
  EXPECT_EQ(p.numRanks, 2);
  EXPECT_EQ(p.numStages, 4);
  EXPECT_EQ(p.chunks, 2);
  EXPECT_EQ(p.numMicrobatches(), 8);
  EXPECT_TRUE(p.splitBackward);
  EXPECT_FALSE(r->legacyEncoding);
  std::vector<int> ranks;
  for (const auto& s : p.placement[0])
    ranks.push_back(s.rank);
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 0, 1}));
  // 4 stages × 8 micro-batches × (F, I, W) over both ranks.
  EXPECT_EQ(p.actionCount(), 4u * 8u * 3u);
  auto v = validatePlan(p);
  EXPECT_TRUE(v) << v.error();
}

}  // namespace
}  // namespace ps::runtime
