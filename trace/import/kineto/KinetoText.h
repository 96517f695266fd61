#pragma once
// Lenient text for Kineto traces (issue 30, item 19), as Perfetto reads them: one invalid
// UTF-8 byte refused a whole file, and a lone surrogate escape ("\ud800") emptied a label.
// Both become U+FFFD instead; the reader warns once, naming the file.

#include <cstddef>
#include <string>
#include <string_view>

namespace ps::trace::import {

// Appends `in` to `out` with every byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD (EF BF BD); returns how many were replaced.
std::size_t replaceInvalidUtf8(std::string_view in, std::string& out);

// The decoded contents of a JSON string as written between its quotes (escapes included). A
// lone or reversed surrogate escape, a malformed escape and invalid UTF-8 each become U+FFFD.
std::string decodeJsonStringLenient(std::string_view contents);

// The first byte of data[begin, end) that simdjson's first pass refuses (invalid UTF-8, a
// control character inside a string), for the message; `begin` when none is found.
std::size_t firstBadByte(const char* data, std::size_t begin, std::size_t end);

}  // namespace ps::trace::import
