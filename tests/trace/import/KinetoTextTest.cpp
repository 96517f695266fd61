// Lenient text in Kineto traces (issue 30, item 19), as Perfetto reads them: one invalid UTF-8
// byte refused the whole file, and a lone surrogate escape emptied a label. Now each becomes
// U+FFFD and the reader warns once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/trace/import/KinetoPlanted.h"
#include "trace/import/kineto/KinetoText.h"

namespace ps::trace::import {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::readText;

const std::string kReplacement = "\xEF\xBF\xBD";

std::string annotation(const std::string& nameJson, int ts) {
  return R"({"ph": "X", "cat": "user_annotation", "name": ")" + nameJson +
         R"(", "pid": 1, "tid": 2, "ts": )" + std::to_string(ts) + R"(, "dur": 5})";
}

std::vector<std::string> namesOf(const RawRankTrace& t) {
  std::vector<std::string> out;
  for (const auto& e : t.events)
    out.push_back(t.nameOf(e));
  return out;
}

TEST(KinetoText, InvalidUtf8IsReplacedAndWarnedOnce) {
  const std::string json = "{\"traceEvents\": [" + annotation("PP:0F0", 10) + ", " +
                           annotation("PP:0B0\xff", 20) + ", " +
                           annotation("bad\xc3(\xed\xa0\x80", 30) + "]}";
  auto t = readText(json, "bad-utf8.json");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_THAT(namesOf(*t),
              ElementsAre("PP:0F0", "PP:0B0" + kReplacement,
                          "bad" + kReplacement + "(" + kReplacement + kReplacement + kReplacement));
  EXPECT_THAT(t->warnings, Contains("5 bytes of invalid UTF-8 replaced by U+FFFD"));
  EXPECT_EQ(
      std::count_if(t->warnings.begin(), t->warnings.end(),
                    [](const std::string& w) { return w.find("UTF-8") != std::string::npos; }),
      1);
}

TEST(KinetoText, LoneSurrogateEscapeBecomesReplacementNotEmpty) {
  const std::string json = "{\"traceEvents\": [" + annotation(R"(PP:0F0\ud800)", 10) + ", " +
                           annotation(R"(x\udc00y\u00e9\ud83d\ude00)", 20) + "]}";
  auto t = readText(json, "surrogate.json");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_THAT(namesOf(*t), ElementsAre("PP:0F0" + kReplacement,
                                       "x" + kReplacement + "y\xc3\xa9\xf0\x9f\x98\x80"));
}

TEST(KinetoText, LenientDecoding) {
  EXPECT_EQ(decodeJsonStringLenient(R"(a\"b\\c\/d\n)"), "a\"b\\c/d\n");
  EXPECT_EQ(decodeJsonStringLenient(R"(\ud83d\ude00)"), "\xf0\x9f\x98\x80");
  EXPECT_EQ(decodeJsonStringLenient(R"(\ude00\ud83d)"), kReplacement + kReplacement);
  EXPECT_EQ(decodeJsonStringLenient(R"(\u12)"), kReplacement + "12");
  EXPECT_EQ(decodeJsonStringLenient(R"(\q)"), kReplacement);
  std::string out;
  EXPECT_EQ(replaceInvalidUtf8("ok\x80", out), 1U);
  EXPECT_EQ(out, "ok" + kReplacement);
}

}  // namespace
}  // namespace ps::trace::import
