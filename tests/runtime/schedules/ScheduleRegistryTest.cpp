// The schedule registry: names, families, bad input, and the plan skeleton.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/schedules/Schedule.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(ScheduleRegistry, ListsEveryGeneratorWithItsFamily) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"gpipe", "classic"},
      {"1f1b", "classic"},
      {"interleaved-1f1b", "interleaved"},
      {"looped-bfs", "interleaved"},
      {"zb-h1", "zero-bubble"},
      {"zb-h2", "zero-bubble"},
      {"zb-v", "zero-bubble"},
      {"chimera", "bidirectional"},
      {"dualpipe-v", "bidirectional"},
      {"bitpipe", "bidirectional"},
      {"pipedream", "asynchronous"},
      {"pipedream-2bw", "asynchronous"},
      {"nf1b", "asynchronous"}};
  const auto& reg = scheduleRegistry();
  ASSERT_EQ(reg.size(), expected.size());
  for (std::size_t i = 0; i < reg.size(); ++i) {
    EXPECT_EQ(reg[i].name, expected[i].first);
    EXPECT_EQ(reg[i].family, expected[i].second) << reg[i].name;
    EXPECT_FALSE(reg[i].summary.empty()) << reg[i].name;
    EXPECT_FALSE(reg[i].constraints.empty()) << reg[i].name;
    EXPECT_EQ(reg[i].asynchronous, reg[i].family == "asynchronous") << reg[i].name;
    EXPECT_EQ(findSchedule(reg[i].name), &reg[i]);
  }
  EXPECT_EQ(findSchedule("GPipe"), nullptr);  // names are exact
}

TEST(ScheduleRegistry, UnknownNameListsEveryValidName) {
  auto plan = generateSchedule("zero-bubble", {});
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error(), HasSubstr("unknown schedule 'zero-bubble'"));
  for (const auto& info : scheduleRegistry())
    EXPECT_THAT(plan.error(), HasSubstr(info.name));
}

TEST(ScheduleRegistry, RejectsNonPositiveSizesNamingTheParameter) {
  struct Case {
    ScheduleParams params;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{0, 8, 1, 1}, "1f1b: ranks must be positive (got 0)"},
      {{4, -2, 1, 1}, "1f1b: microbatches must be positive (got -2)"},
      {{4, 8, 0, 1}, "1f1b: chunks must be positive (got 0)"},
      {{4, 8, 1, 0}, "1f1b: steps must be positive (got 0)"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(checkBasicParams("1f1b", c.params).error(), HasSubstr(c.message));
    for (const auto& info : scheduleRegistry()) {
      auto plan = info.generate(c.params);
      ASSERT_FALSE(plan.ok()) << info.name;
      EXPECT_THAT(plan.error(), HasSubstr(info.name + ": ")) << info.name;
      EXPECT_THAT(plan.error(), HasSubstr("must be positive")) << info.name;
    }
  }
  EXPECT_TRUE(checkBasicParams("1f1b", {4, 8, 1, 1}).ok());
}

TEST(ScheduleRegistry, ConstraintViolationsNameTheConstraintAndValues) {
  EXPECT_EQ(generateSchedule("interleaved-1f1b", {4, 6, 2, 1}).error(),
            "interleaved-1f1b: needs m to be a multiple of p (m=6, p=4)");
  EXPECT_EQ(generateSchedule("zb-h1", {4, 3, 1, 1}).error(), "zb-h1: needs m >= p (m=3, p=4)");
  EXPECT_EQ(generateSchedule("zb-h2", {4, 6, 1, 1}).error(), "zb-h2: needs m >= 2p-1 (m=6, p=4)");
  EXPECT_EQ(generateSchedule("chimera", {3, 6, 1, 1}).error(), "chimera: needs p even (p=3)");
  EXPECT_THAT(generateSchedule("chimera", {4, 5, 1, 1}).error(), HasSubstr("m even"));
  EXPECT_EQ(generateSchedule("dualpipe-v", {4, 7, 2, 1}).error(),
            "dualpipe-v: needs m >= 2p (m=7, p=4)");
  EXPECT_THAT(generateSchedule("pipedream-2bw", {4, 2, 1, 2}).error(),
              HasSubstr("pipedream-2bw: needs m >= p"));
}

TEST(ScheduleRegistry, SkeletonHasOneLayerPerStageAndOneReplica) {
  const Plan plan = planSkeleton("x", 3, 6, 5, [](int s) { return s % 3; });
  EXPECT_EQ(plan.schedule, "x");
  EXPECT_EQ(plan.numRanks, 3);
  EXPECT_EQ(plan.numStages, 6);
  EXPECT_EQ(plan.chunks, 2);
  EXPECT_EQ(plan.numLayers, 6);
  ASSERT_EQ(plan.numReplicas(), 1);
  for (int s = 0; s < 6; ++s) {
    EXPECT_EQ(plan.placement[0][s].rank, s % 3);
    EXPECT_EQ(plan.placement[0][s].firstLayer, s);
    EXPECT_EQ(plan.placement[0][s].lastLayer, s);
  }
  ASSERT_EQ(plan.numMicrobatches(), 5);
  for (const auto& mb : plan.microbatches) {
    EXPECT_EQ(mb.costScale, 1.0);
    EXPECT_EQ(mb.replica, 0);
  }
  EXPECT_EQ(plan.programs.size(), 3u);
  EXPECT_EQ(plan.actionCount(), 0u);
}

}  // namespace
}  // namespace ps::runtime
