#include "trace/import/MappingRules.h"

#include <gtest/gtest.h>

#include "trace/import/OpRecognizer.h"

namespace ps::trace::import {
namespace {

TEST(MappingRulesTest, AppliesFixedAndCapturedFields) {
  auto rules = MappingRules::parse(
      R"({"rules":[{"pattern":"^p2p_send_(\\d+)_step(\\d+)$","kind":"SEND_F","stage":0,
                    "microbatch":"$1","step":"$2"},
                   {"pattern":"^optim","kind":"OPT"}]})",
      "in-house.json");
  ASSERT_TRUE(rules.ok()) << rules.error();
  EXPECT_EQ(rules->size(), 2U);
  auto sent = rules->apply("p2p_send_5_step9");
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->kind, OpKind::SEND_F);
  EXPECT_EQ(sent->stage, 0);
  EXPECT_EQ(sent->microbatch, 5);
  EXPECT_EQ(sent->step, 9);
  EXPECT_EQ(sent->chunk, -1);
  auto opt = rules->apply("optimizer_step");
  ASSERT_TRUE(opt);
  EXPECT_EQ(opt->kind, OpKind::OPT);
  EXPECT_FALSE(rules->apply("something else"));
}

TEST(MappingRulesTest, ACaptureThatIsNotANumberSkipsTheRule) {
  auto rules = MappingRules::parse(
      R"({"rules":[{"pattern":"^mb_(\\w+)$","kind":"F","microbatch":"$1"},
                   {"pattern":"^mb_","kind":"B"}]})",
      "r.json");
  ASSERT_TRUE(rules.ok()) << rules.error();
  EXPECT_EQ(rules->apply("mb_12")->kind, OpKind::F);
  EXPECT_EQ(rules->apply("mb_x")->kind, OpKind::B);
}

struct BadRules {
  const char* json;
  const char* message;
};

class MappingRulesBadInputTest : public ::testing::TestWithParam<BadRules> {};

TEST_P(MappingRulesBadInputTest, NamesTheFileAndTheProblem) {
  auto rules = MappingRules::parse(GetParam().json, "team.json");
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.error().find("team.json"), std::string::npos) << rules.error();
  EXPECT_NE(rules.error().find(GetParam().message), std::string::npos) << rules.error();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MappingRulesBadInputTest,
    ::testing::Values(
        BadRules{"{", "malformed JSON"}, BadRules{"[]", "\"rules\" array"},
        BadRules{R"({"rules":[1]})", "rule 0: expected an object"},
        BadRules{R"({"rules":[{"kind":"F"}]})", "rule 0: missing string \"pattern\""},
        BadRules{R"({"rules":[{"pattern":"x"}]})", "missing string \"kind\""},
        BadRules{R"({"rules":[{"pattern":"x","kind":"FWD"}]})", "unknown kind \"FWD\""},
        BadRules{R"({"rules":[{"pattern":"(","kind":"F"}]})", "invalid pattern \"(\""},
        BadRules{R"json({"rules":[{"pattern":"x(\\d)","kind":"F","stage":"$2"}]})json",
                 "refers to capture $2 but the pattern has 1"},
        BadRules{R"({"rules":[{"pattern":"x","kind":"F","stage":-1}]})", "out of range"},
        BadRules{R"({"rules":[{"pattern":"x","kind":"F","stage":"one"}]})",
                 "must be a non-negative integer"},
        // Found by fuzzing: libstdc++ overflows a long on these numbers (UB).
        BadRules{R"json({"rules":[{"pattern":"^fd_(\\4444444444444444444d+)6","kind":"F"}]})json",
                 "pattern number 4444444444444444444 is too large"},
        BadRules{R"json({"rules":[{"pattern":"a{2,99999999999}","kind":"F"}]})json",
                 "pattern number 99999999999 is too large"}));

TEST(MappingRulesTest, ReasonableCountsAndEscapedBackslashesStillCompile) {
  auto rules = MappingRules::parse(
      R"json({"rules":[{"pattern":"^x(\\d{1,3})\\\\12345 F_0,12345 (a)\\1","kind":"F"}]})json",
      "team.json");
  EXPECT_TRUE(rules.ok()) << rules.error();
}

TEST(MappingRulesTest, MissingFileIsNamed) {
  auto rules = MappingRules::load("/nonexistent/rules.json");
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.error().find("/nonexistent/rules.json"), std::string::npos);
}

}  // namespace
}  // namespace ps::trace::import
