#pragma once
// UTF-8 validation shared by the writers of text from files (JSON output, terminal output).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ps::trace {

// Length (1..4) of the valid UTF-8 sequence starting at text[i], its code point in `codePoint`;
// 0 when the bytes there are not one: a stray continuation byte, a truncated or overlong
// sequence, a surrogate or a value past U+10FFFF.
std::size_t utf8SequenceAt(std::string_view text, std::size_t i, std::uint32_t& codePoint);

}  // namespace ps::trace
