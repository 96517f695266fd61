#include "trace/import/MappingRules.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

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
        BadRules{R"json({"rules":[{"pattern":"x(\\d)","kind":"$2"}]})json",
                 "\"kind\" refers to capture $2 but the pattern has 1"}));

// RE2 has no backreferences and no lookaround (the price of linear-time matching): a rule
// using them is refused with the file, the rule, the pattern and RE2's own message.
struct UnsupportedPattern {
  const char* json;
  const char* message;
};

class MappingRulesUnsupportedTest : public ::testing::TestWithParam<UnsupportedPattern> {};

TEST_P(MappingRulesUnsupportedTest, SaysWhatRe2Refuses) {
  auto rules = MappingRules::parse(GetParam().json, "team.json");
  ASSERT_FALSE(rules.ok());
  EXPECT_EQ(rules.error(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MappingRulesUnsupportedTest,
    ::testing::Values(
        UnsupportedPattern{
            R"json({"rules":[{"pattern":"^x","kind":"F"},{"pattern":"(a)\\1","kind":"F"}]})json",
            "team.json: rule 1: invalid pattern \"(a)\\1\": invalid escape sequence: \\1 "
            "(patterns are RE2 syntax: no backreferences or lookaround)"},
        UnsupportedPattern{
            R"json({"rules":[{"pattern":"^fwd(?=_mb)","kind":"F"}]})json",
            "team.json: rule 0: invalid pattern \"^fwd(?=_mb)\": invalid perl operator: (?= "
            "(patterns are RE2 syntax: no backreferences or lookaround)"},
        UnsupportedPattern{R"json({"rules":[{"pattern":"(?<!x)y","kind":"F"}]})json",
                           "team.json: rule 0: invalid pattern \"(?<!x)y\": invalid perl "
                           "operator: (?< (patterns are RE2 syntax: no backreferences or "
                           "lookaround)"},
        UnsupportedPattern{R"json({"rules":[{"pattern":"a{1001}","kind":"F"}]})json",
                           "team.json: rule 0: invalid pattern \"a{1001}\": invalid repetition "
                           "size: {1001}"},
        // Quoted as is (the CLI's error printer makes it terminal-safe).
        UnsupportedPattern{"{\"rules\":[{\"pattern\":\"(\\u001b[2J\",\"kind\":\"F\"}]}",
                           "team.json: rule 0: invalid pattern \"(\x1b[2J\": missing ]: [2J"}));

// Found by fuzzing std::regex (libstdc++ overflowed a long on these numbers, UB); RE2 reads
// them safely, so they are ordinary patterns now.
TEST(MappingRulesTest, HugeNumbersInPatternsAreHarmless) {
  for (const char* json :
       {R"json({"rules":[{"pattern":"^fd_(\\4444444444444444444d+)6","kind":"F"}]})json",
        R"json({"rules":[{"pattern":"a{2,99999999999}","kind":"F"}]})json",
        R"json({"rules":[{"pattern":"^x(\\d{1,3})\\\\12345 F_0,12345","kind":"F"}]})json"}) {
    auto rules = MappingRules::parse(json, "team.json");
    ASSERT_TRUE(rules.ok()) << rules.error();
    EXPECT_FALSE(rules->apply("unrelated"));
  }
}

// Issue 12 case 1: std::regex backtracked exponentially; `(a+)+$` on 26 `a`s took 5.8 s and on
// 1000 ran past 20 s at full CPU. RE2 matches in linear time.
TEST(MappingRulesTest, CatastrophicPatternsFinishQuicklyOnLongLabels) {
  auto rules = MappingRules::parse(
      R"json({"rules":[{"pattern":"(a+)+$","kind":"F"},{"pattern":"((a*)*)*b","kind":"B"},
                       {"pattern":"^(a|aa)*c","kind":"W"}]})json",
      "evil.json");
  ASSERT_TRUE(rules.ok()) << rules.error();
  // Built with append, not `std::string(n, 'a') + "!"`: GCC 12 at -O2 misreads that inlined
  // concatenation as out of bounds (-Warray-bounds).
  std::string label(1000, 'a');
  label.append("!");
  std::string longWithB(100'000, 'a');
  longWithB.append("b");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i)
    EXPECT_FALSE(rules->apply(label));
  EXPECT_EQ(rules->apply(std::string(1000, 'a'))->kind, OpKind::F);
  EXPECT_EQ(rules->apply(longWithB)->kind, OpKind::B);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 0.5);
}

TEST(MappingRulesTest, PatternsAreSearchedAnywhereInTheLabel) {
  auto rules = MappingRules::parse(R"json({"rules":[{"pattern":"fwd","kind":"F"},
                                                    {"pattern":"^bwd$","kind":"B"}]})json",
                                   "r.json");
  ASSERT_TRUE(rules.ok()) << rules.error();
  EXPECT_EQ(rules->apply("layer3_fwd_mb2")->kind, OpKind::F);
  EXPECT_EQ(rules->apply("bwd")->kind, OpKind::B);
  EXPECT_FALSE(rules->apply("bwd_x"));
}

// Issue 12 case 11: the kind from a capture group.
TEST(MappingRulesTest, KindFromACaptureGroup) {
  auto rules = MappingRules::parse(
      R"json({"rules":[{"pattern":"^(\\w+)_s(\\d+)_mb(\\d+)$","kind":"$1","stage":"$2",
                        "microbatch":"$3"},
                       {"pattern":"^(F|B)?x$","kind":"$1"}]})json",
      "r.json");
  ASSERT_TRUE(rules.ok()) << rules.error();
  const auto w = rules->apply("W_s2_mb7");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->kind, OpKind::W);
  EXPECT_EQ(w->stage, 2);
  EXPECT_EQ(w->microbatch, 7);
  EXPECT_EQ(rules->apply("SEND_F_s0_mb1")->kind, OpKind::SEND_F);
  // Not a kind's exact name, or a group that took no part: the rule does not apply.
  EXPECT_FALSE(rules->apply("fwd_s0_mb1"));
  EXPECT_FALSE(rules->apply("f_s0_mb1"));
  EXPECT_FALSE(rules->apply("x"));
  EXPECT_EQ(rules->apply("Bx")->kind, OpKind::B);
}

TEST(MappingRulesTest, MissingFileIsNamed) {
  auto rules = MappingRules::load("/nonexistent/rules.json");
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.error().find("/nonexistent/rules.json"), std::string::npos);
}

}  // namespace
}  // namespace ps::trace::import
