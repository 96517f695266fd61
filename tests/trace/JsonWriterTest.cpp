#include <gtest/gtest.h>

#include <cmath>

#include "trace/JsonWriter.h"

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

}  // namespace
}  // namespace ps::trace
