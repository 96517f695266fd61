#include "trace/import/kineto/KinetoNumber.h"

#include <limits>

namespace ps::trace::import {

namespace {

constexpr std::uint64_t kPow10[] = {1ULL,
                                    10ULL,
                                    100ULL,
                                    1000ULL,
                                    10000ULL,
                                    100000ULL,
                                    1000000ULL,
                                    10000000ULL,
                                    100000000ULL,
                                    1000000000ULL,
                                    10000000000ULL,
                                    100000000000ULL,
                                    1000000000000ULL,
                                    10000000000000ULL,
                                    100000000000000ULL,
                                    1000000000000000ULL,
                                    10000000000000000ULL,
                                    100000000000000000ULL,
                                    1000000000000000000ULL,
                                    10000000000000000000ULL};

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::int64_t> parseScaledDecimal(std::string_view text, int scale) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = trim(text.substr(1, text.size() - 2));
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  // Up to 19 significant digits go into the mantissa; the rest only shift the exponent (integer
  // part) or are dropped (fraction digits that far down cannot reach a nanosecond).
  std::uint64_t mantissa = 0;
  int digits = 0;
  int exponent = 0;
  bool anyDigit = false;
  auto take = [&](char c, bool fraction) {
    anyDigit = true;
    if (digits < 19) {
      if (mantissa == 0 && c == '0') {
        if (fraction) --exponent;  // leading zeros after the point still scale
        return;
      }
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
      ++digits;
      if (fraction) --exponent;
    } else if (!fraction) {
      ++exponent;
    }
  };
  while (i < text.size() && isDigit(text[i]))
    take(text[i++], false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && isDigit(text[i]))
      take(text[i++], true);
  }
  if (!anyDigit) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool expNegative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) expNegative = text[i++] == '-';
    if (i >= text.size() || !isDigit(text[i])) return std::nullopt;
    int e = 0;
    while (i < text.size() && isDigit(text[i])) {
      if (e < 100000) e = e * 10 + (text[i] - '0');
      ++i;
    }
    exponent += expNegative ? -e : e;
  }
  if (i != text.size()) return std::nullopt;

  exponent += scale;
  std::uint64_t magnitude = 0;
  if (mantissa == 0) {
    magnitude = 0;
  } else if (exponent >= 0) {
    if (exponent > 19) return std::nullopt;
    const std::uint64_t factor = kPow10[exponent];
    if (mantissa > std::numeric_limits<std::uint64_t>::max() / factor) return std::nullopt;
    magnitude = mantissa * factor;
  } else if (exponent >= -19) {
    const std::uint64_t divisor = kPow10[-exponent];
    magnitude = mantissa / divisor;
    const std::uint64_t remainder = mantissa % divisor;
    // Half away from zero.
    if (remainder >= divisor - remainder) ++magnitude;
  } else {
    magnitude = 0;
  }
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > limit + 1) return std::nullopt;
    return magnitude == limit + 1 ? std::numeric_limits<std::int64_t>::min()
                                  : -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > limit) return std::nullopt;
  return static_cast<std::int64_t>(magnitude);
}

}  // namespace ps::trace::import
