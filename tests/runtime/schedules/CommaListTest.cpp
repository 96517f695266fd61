// The shared comma-list splitter (issue 30, item 19): an empty item is refused by flag and value,
// never dropped (--rank-speed 1,,1,1 was taken as 3 values, 1,,1,1,1 as 4 and shifted onto the
// wrong ranks); every flag that reads a comma list in the runtime goes through it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/run/PlanBuilder.h"
#include "runtime/schedules/CommaList.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(CommaList, SplitsAndTrimsItems) {
  auto items = splitCommaList(" a, b ,c", "--x");
  ASSERT_TRUE(items.ok()) << items.error();
  EXPECT_EQ(*items, (std::vector<std::string>{"a", "b", "c"}));
  auto numbers = parseNumberList("1,2.5,1e3", "--rank-speed");
  ASSERT_TRUE(numbers.ok()) << numbers.error();
  EXPECT_EQ(*numbers, (std::vector<double>{1, 2.5, 1000}));
}

TEST(CommaList, EmptyItemsAreRefusedByFlagAndValue) {
  EXPECT_EQ(parseNumberList("1,,1,1", "--rank-speed").error(),
            "--rank-speed 1,,1,1: item 2 is empty (give a value between every two commas)");
  EXPECT_EQ(parseNumberList("1,1,", "--rank-speed").error(),
            "--rank-speed 1,1,: item 3 is empty (give a value between every two commas)");
  EXPECT_EQ(parseIntList(",8", "--microbatches").error(),
            "--microbatches ,8: item 1 is empty (give a value between every two commas)");
  EXPECT_EQ(parseNumberList("", "--rank-memory-gb").error(), "--rank-memory-gb : no values given");
  EXPECT_EQ(parseNumberList("1,x", "--rank-speed").error(),
            "--rank-speed 1,x: 'x' is not a number");
  EXPECT_EQ(parseIntList("8,1.5", "--chunks").error(),
            "--chunks 8,1.5: '1.5' is not a whole number");
}

// The runtime's own list flags: a trailing or doubled comma names the flag.
TEST(CommaList, EveryListFlagOfAPlanRefusesEmptyItems) {
  const auto error = [](PlanSpec s) {
    auto built = buildPlan(s);
    return built ? std::string("(built)") : built.error();
  };
  PlanSpec slices;
  slices.schedule = "gpipe";
  slices.tokenSlices = "1024,1024,";
  EXPECT_THAT(error(slices), HasSubstr("--token-slices 1024,1024,: item 3 is empty"));
  PlanSpec graph;
  graph.schedule = "gpipe";
  graph.stageGraph = "0>1,,1>3,2>3";
  EXPECT_THAT(error(graph), HasSubstr("--stage-graph 0>1,,1>3,2>3: item 2 is empty"));
  PlanSpec lengths;
  lengths.seqLengths = "512,,96";
  EXPECT_THAT(error(lengths), HasSubstr("--seq-lengths 512,,96: item 2 is empty"));
  PlanSpec boundaries;
  boundaries.layers = 8;
  boundaries.boundaries = "2,,6";
  EXPECT_THAT(error(boundaries), HasSubstr("--boundaries '2,,6': '' is not a layer number"));
  PlanSpec mapping;
  mapping.mapping = "0,1,,3";
  EXPECT_THAT(error(mapping), HasSubstr("--mapping 0,1,,3: '' is not a device number"));
}

}  // namespace
}  // namespace ps::runtime
