#pragma once
// Time maths over the whole int64 axis (issue 12 case 13), beside Saturating.h's satAdd/satSub:
// a run whose ops sit at INT64_MIN and INT64_MAX (built in memory, or from a file no loader
// bounded) must render, zoom and report without signed overflow or an out-of-range cast.

#include <cmath>
#include <cstdint>
#include <limits>

#include "trace/analysis/Saturating.h"

namespace ps::trace {

inline constexpr std::int64_t kTimeMin = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kTimeMax = std::numeric_limits<std::int64_t>::max();

// |a|, with |INT64_MIN| clamped to INT64_MAX.
inline std::int64_t satAbs(std::int64_t a) {
  return a >= 0 ? a : (a == kTimeMin ? kTimeMax : -a);
}

// a - b as a double: exact while it fits int64 (deep zoom far from 0 keeps its nanoseconds),
// rounded beyond that instead of overflowing.
inline double differenceOf(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return static_cast<double>(a) - static_cast<double>(b);
  return static_cast<double>(r);
}

// A double rounded toward zero and clamped to the int64 range; NaN gives 0. (A plain cast of a
// double outside the range is undefined.)
inline std::int64_t satFromDouble(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 0x1p63) return kTimeMax;
  if (v < -0x1p63) return kTimeMin;
  return static_cast<std::int64_t>(v);
}

// t + offset for any offset in ns, even one past 2^63 (a pixel far into a view over the whole
// axis), clamped to the int64 range; exact to the nanosecond of the offset's integer part.
inline std::int64_t timePlus(std::int64_t t, double offset) {
  if (std::isnan(offset)) return t;
  const auto ut = static_cast<std::uint64_t>(t);
  if (offset >= 0) {
    if (offset >= 0x1p64) return kTimeMax;
    const auto off = static_cast<std::uint64_t>(offset);
    if (off > static_cast<std::uint64_t>(kTimeMax) - ut) return kTimeMax;  // room = MAX - t
    return static_cast<std::int64_t>(ut + off);
  }
  if (-offset >= 0x1p64) return kTimeMin;
  const auto off = static_cast<std::uint64_t>(-offset);
  if (off > ut - static_cast<std::uint64_t>(kTimeMin)) return kTimeMin;  // room = t - MIN
  return static_cast<std::int64_t>(ut - off);
}

}  // namespace ps::trace
