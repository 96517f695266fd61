#include <gtest/gtest.h>

#include <cmath>

#include "trace/JsonWriter.h"
#include "trace/analysis/ConfigJson.h"

namespace ps::trace {
namespace {

TEST(JsonWriter, WritesNestedContainersCompactly) {
  JsonWriter w;
  w.beginObject().key("a").value(1).key("b").beginArray().value("x").null().value(true).endArray();
  w.key("c").beginObject().endObject().key("d").value(std::optional<int>{}).endObject();
  EXPECT_EQ(w.str(), R"({"a":1,"b":["x",null,true],"c":{},"d":null})");
}

TEST(JsonWriter, EscapesControlCharactersAndQuotes) {
  JsonWriter w;
  w.value(std::string_view("a\"b\\c\nd\x01"));
  EXPECT_EQ(w.str(), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

TEST(JsonWriter, NonFiniteNumbersBecomeNull) {
  JsonWriter w;
  w.beginArray().value(std::nan("")).value(0.25).endArray();
  EXPECT_EQ(w.str(), "[null,0.25]");
}

TEST(JsonWriter, PrettyPrintsWithTwoSpaces) {
  JsonWriter w(true);
  w.beginObject().key("k").beginArray().value(1).endArray().endObject();
  EXPECT_EQ(w.str(), "{\n  \"k\": [\n    1\n  ]\n}");
}

// A model run's config_json nests the plan's knobs: they read back as an object, then as knobs.
TEST(ConfigJson, ReadsANestedObjectBackAsJsonText) {
  JsonWriter w;
  w.beginObject().key("plan").raw(R"({"schedule":"1f1b","stages":2})").key("backend").value("cpu");
  w.endObject();
  const auto plan = jsonTopLevelObject(w.str(), "plan");
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(jsonTopLevelString(*plan, "schedule"), "1f1b");
  EXPECT_EQ(jsonTopLevelInt(*plan, "stages"), 2);
  EXPECT_FALSE(jsonTopLevelObject(w.str(), "backend").has_value());  // a string, not an object
  EXPECT_FALSE(jsonTopLevelObject(w.str(), "missing").has_value());
  EXPECT_FALSE(jsonTopLevelObject("not json", "plan").has_value());
}

}  // namespace
}  // namespace ps::trace
