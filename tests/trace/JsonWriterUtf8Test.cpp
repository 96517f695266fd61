// Issue 12 case 14: a run name or label from a file reaches JSON output (report --json, exports);
// control characters are escaped and bytes that are not UTF-8 must not make the document invalid.

#include <gtest/gtest.h>
#include <simdjson.h>

#include "trace/JsonWriter.h"

namespace ps::trace {
namespace {

std::string quoted(std::string_view text) {
  std::string out;
  JsonWriter::appendEscaped(out, text);
  return out;
}

TEST(JsonWriterUtf8, ValidUtf8IsKeptAsIs) {
  EXPECT_EQ(quoted("µs · 时间 🙂"), "\"µs · 时间 🙂\"");
}

TEST(JsonWriterUtf8, EscapeSequencesAreEscaped) {
  EXPECT_EQ(quoted("\x1b[2J\rx\x7f"), "\"\\u001b[2J\\rx\x7f\"");
}

TEST(JsonWriterUtf8, InvalidBytesBecomeReplacementCharacters) {
  // A Latin-1 "é", a stray continuation byte, a truncated sequence, an overlong '/', a surrogate.
  EXPECT_EQ(quoted("caf\xe9"), "\"caf\\ufffd\"");
  EXPECT_EQ(quoted("a\x80z"), "\"a\\ufffdz\"");
  EXPECT_EQ(quoted("\xe6\x97"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
}

TEST(JsonWriterUtf8, ADocumentWithHostileNamesParses) {
  JsonWriter w;
  w.beginObject().key("name\xff").value("run \x1b]0;title\x07 caf\xe9 \xe6\x97").endObject();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(w.str()).get(doc), simdjson::SUCCESS) << w.str();
  std::string_view name;
  ASSERT_EQ(doc["name\xef\xbf\xbd"].get_string().get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "run \x1b]0;title\x07 caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
}

}  // namespace
}  // namespace ps::trace
