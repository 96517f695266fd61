#pragma once
// Locates the first syntax error in JSON text. simdjson says only *that* a document is malformed;
// people fixing a hand-edited cost file need *where*, so on a failed parse we rescan with this
// small recursive-descent checker (RFC 8259 grammar) to name the line and column.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ps::runtime {

struct JsonSyntaxError {
  std::size_t offset = 0;  // byte offset of the offending character (or the end)
  int line = 1;            // 1-based
  int column = 1;          // 1-based, in bytes
  std::string expected;    // what the grammar wanted there, e.g. "',' or '}'"
};

// nullopt when `text` is one well-formed JSON value (surrounded by optional whitespace).
std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view text);

}  // namespace ps::runtime
