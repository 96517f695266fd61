#pragma once
// int64 arithmetic that saturates instead of overflowing: the analyses and exports also run on
// traces built in memory, where no loader has bounded the times (RunTrace kMaxAbsTimeNs).

#include <cstdint>
#include <limits>

namespace ps::trace {

// a + b, clamped to the int64 range.
inline std::int64_t satAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
  return r;
}

// a - b, clamped to the int64 range.
inline std::int64_t satSub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
  return r;
}

}  // namespace ps::trace
