// The PLAN flags come from the plan knob table (runtime/run/PlanKnobs.h): `sim --help` lists
// every row's flag with its help, and a value outside a row's range or words is a usage error
// naming the flag.

#include <gtest/gtest.h>

#include "runtime/run/PlanKnobs.h"
#include "tests/app/CliTestUtil.h"

namespace ps {
namespace {

TEST(CliPlanKnobFlags, SimHelpListsEveryTableFlag) {
  const auto help = test::cli({"sim", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const runtime::PlanKnob& knob : runtime::planKnobs())
    EXPECT_NE(help.out.find(std::string(knob.flag)), std::string::npos) << knob.flag;
}

TEST(CliPlanKnobFlags, RangesAndWordsOfTheTableAreChecked) {
  const auto chunks = test::cli({"sim", "--chunks", "65", "--db", "/tmp/never.sqlite"});
  EXPECT_NE(chunks.exit_code, 0);
  EXPECT_NE(chunks.err.find("--chunks"), std::string::npos) << chunks.err;
  const auto fill = test::cli({"sim", "--fill", "sideways", "--db", "/tmp/never.sqlite"});
  EXPECT_NE(fill.exit_code, 0);
  EXPECT_NE(fill.err.find("--fill"), std::string::npos) << fill.err;
}

}  // namespace
}  // namespace ps
