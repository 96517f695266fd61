#pragma once
// Exact number reading for Kineto traces. Times are written as microseconds with nanosecond
// fractions ("4458676388068.751"), and legacy files hold absolute epoch microseconds
// (1694128201428473): a double has only ~16 digits, so going through one would lose the
// nanoseconds. These work on the number's text instead. Integers beyond int64 (arg values
// above 2^63 appear in real traces) give nullopt rather than an error.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ps::trace::import {

// The JSON number in `text` times 10^scale, rounded half away from zero. Accepts surrounding
// whitespace and a quoted number ("12"). nullopt when it is not a number or does not fit.
[[nodiscard]] std::optional<std::int64_t> parseScaledDecimal(std::string_view text, int scale);

// Microseconds as written -> nanoseconds.
[[nodiscard]] inline std::optional<std::int64_t> parseMicrosAsNanos(std::string_view text) {
  return parseScaledDecimal(text, 3);
}

// An integer (a float's fraction is rounded).
[[nodiscard]] inline std::optional<std::int64_t> parseInteger(std::string_view text) {
  return parseScaledDecimal(text, 0);
}

// A count, id or rank: the integer when it is one and not negative, else -1 (RawEvent's unknown).
[[nodiscard]] inline std::int64_t parseCountOrMinusOne(std::string_view text) {
  const auto v = parseInteger(text);
  return v && *v >= 0 ? *v : -1;
}

}  // namespace ps::trace::import
