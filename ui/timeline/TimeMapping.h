#pragma once
// Time <-> pixel maths of the timeline, pure functions (DESIGN §7.5). Times are ns on the run's
// axis; pixels are doubles from the left of the plotting area. No clamping: the caller clips.
// Any int64 times are allowed (issue 12 case 13: ops at INT64_MIN and INT64_MAX): differences are
// taken in double or saturate, so nothing here overflows.

#include <cstdint>
#include <cstdio>
#include <string>

#include "trace/analysis/WideTime.h"

namespace ps::ui {

struct TimeRange {
  std::int64_t start = 0;
  std::int64_t end = 1;  // end > start
  // end - start, clamped to INT64_MAX (a range over the whole int64 axis is 2^64 - 1 ns long).
  std::int64_t length() const { return trace::satSub(end, start); }
  // end - start exactly enough for pixel maths, however long.
  double span() const { return trace::differenceOf(end, start); }
};

// The range of `length` ns (>= 1) from `start`, moved earlier where it would pass INT64_MAX.
inline TimeRange rangeFrom(std::int64_t start, std::int64_t length) {
  if (length < 1) length = 1;
  const std::int64_t end = trace::satAdd(start, length);
  return {trace::satSub(end, length), end};
}

// x of time t in a plot `width` px wide showing `r`.
inline double timeToPx(const TimeRange& r, double width, std::int64_t t) {
  return trace::differenceOf(t, r.start) * width / r.span();
}

// The time at x; the inverse of timeToPx up to rounding (clamped to the int64 range).
inline std::int64_t pxToTime(const TimeRange& r, double width, double x) {
  return trace::timePlus(r.start, x * r.span() / width);
}

// Zooms by `factor` (< 1 zooms in) keeping the time under x fixed; never narrower than
// `minLength` ns nor wider than `limit`.
inline TimeRange zoomAround(const TimeRange& r, double width, double x, double factor,
                            std::int64_t minLength, const TimeRange& limit) {
  // Out to the limit or past it: the limit itself (its length may exceed INT64_MAX).
  if (r.span() * factor >= limit.span()) return limit;
  const std::int64_t anchor = pxToTime(r, width, x);
  std::int64_t length = trace::satFromDouble(r.span() * factor);
  if (length < minLength) length = minLength;
  if (length > limit.length()) length = limit.length();
  std::int64_t start =
      trace::satSub(anchor, trace::satFromDouble(x / width * static_cast<double>(length)));
  if (start < limit.start) start = limit.start;
  if (trace::satAdd(start, length) > limit.end) start = trace::satSub(limit.end, length);
  return rangeFrom(start, length);
}

// Moves the range by `dx` pixels (positive = later), kept inside `limit`.
inline TimeRange panByPx(const TimeRange& r, double width, double dx, const TimeRange& limit) {
  const std::int64_t length = r.length();
  std::int64_t start = trace::timePlus(r.start, dx * r.span() / width);
  if (start < limit.start) start = limit.start;
  if (trace::satAdd(start, length) > limit.end) start = trace::satSub(limit.end, length);
  return rangeFrom(start, length);
}

// A tick step of 1, 2 or 5 × 10^k ns giving ticks at least `minPx` apart.
inline std::int64_t tickStep(const TimeRange& r, double width, double minPx) {
  const double nsPerPx = r.span() / width;
  std::int64_t step = 1;
  for (;;) {
    for (std::int64_t m : {1, 2, 5})
      if (static_cast<double>(step * m) / nsPerPx >= minPx) return step * m;
    if (step > INT64_MAX / 100) return step;
    step *= 10;
  }
}

// Axis label of tick t for ticks `step` apart on an axis reaching `magnitude` ns (the largest |t|
// in view; 0: the step alone decides): the unit suits the larger of the two, with as many decimals
// as the step needs ("1.5 ms", "250 µs", "2 s", deep zoom: "1.64995 ms", never "1649950 ns").
inline std::string tickLabel(std::int64_t t, std::int64_t step, std::int64_t magnitude = 0) {
  struct Unit {
    std::int64_t ns;
    const char* name;
  };
  static constexpr Unit units[] = {
      {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};
  const std::int64_t scale = magnitude > step ? magnitude : step;
  const Unit* u = &units[3];
  for (const auto& candidate : units)
    if (candidate.ns > 1 && (scale >= candidate.ns || step >= candidate.ns / 2)) {
      u = &candidate;
      break;
    }
  int decimals = 0;
  for (std::int64_t s = u->ns; s > 1 && step % s != 0 && decimals < 9; s /= 10)
    ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals,
                static_cast<double>(t) / static_cast<double>(u->ns), u->name);
  return buf;
}

}  // namespace ps::ui
