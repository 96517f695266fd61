#include "trace/import/RankAssignment.h"

#include <gtest/gtest.h>

namespace ps::trace::import {
namespace {

TEST(RankAssignmentTest, RankFromFileName) {
  EXPECT_EQ(rankFromFileName("/x/trace_rank3.json"), 3);
  EXPECT_EQ(rankFromFileName("cpu_only_rank-34_of300_gloo.pt.trace.json.gz"), 34);
  EXPECT_EQ(rankFromFileName("/d/worker7_step_12.1694128201553.pt.trace.json"), 7);
  EXPECT_EQ(rankFromFileName("/rank5/profile.json"), std::nullopt);  // the name only
  EXPECT_EQ(rankFromFileName("report1.sqlite"), std::nullopt);
}

RawRankTrace trace(std::string file, std::optional<int> rank = std::nullopt) {
  RawRankTrace t;
  t.file = std::move(file);
  t.rank = rank;
  return t;
}

TEST(RankAssignmentTest, MappingThenMetadataThenNameAndDenseRenumbering) {
  std::vector<RawRankTrace> traces{trace("a.json", 6), trace("worker2.json"), trace("c.json")};
  auto ranks = assignRanks(traces, {{"c.json", 9}});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  EXPECT_EQ((*ranks)[0].originalRank, 6);
  EXPECT_EQ((*ranks)[0].how, "metadata");
  EXPECT_EQ((*ranks)[1].originalRank, 2);
  EXPECT_EQ((*ranks)[1].how, "file name");
  EXPECT_EQ((*ranks)[2].originalRank, 9);
  EXPECT_EQ((*ranks)[2].how, "--rank");
  EXPECT_EQ((*ranks)[1].storedRank, 0);
  EXPECT_EQ((*ranks)[0].storedRank, 1);
  EXPECT_EQ((*ranks)[2].storedRank, 2);
}

TEST(RankAssignmentTest, SeveralProfilesOfOneFileTakeConsecutiveRanks) {
  std::vector<RawRankTrace> traces{trace("mpi.sqlite"), trace("mpi.sqlite"), trace("mpi.sqlite")};
  auto ranks = assignRanks(traces, {});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ((*ranks)[i].originalRank, i);
  EXPECT_EQ((*ranks)[0].how, "process order");
}

TEST(RankAssignmentTest, ErrorsNameTheFiles) {
  auto unknown = assignRanks({trace("a.json"), trace("b.json")}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error(),
            "a.json: cannot tell which rank this file is (no rank in its metadata or its name); "
            "pass --rank a.json=N");
  auto clash = assignRanks({trace("a.json", 1), trace("rank1.json")}, {});
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().find("a.json and rank1.json are both rank 1"), std::string::npos)
      << clash.error();
}

}  // namespace
}  // namespace ps::trace::import
