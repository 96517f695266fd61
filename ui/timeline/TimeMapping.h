#pragma once
// Time <-> pixel maths of the timeline, pure functions (DESIGN §7.5). Times are ns on the run's
// axis; pixels are doubles from the left of the plotting area. No clamping: the caller clips.

#include <cstdint>
#include <cstdio>
#include <string>

namespace ps::ui {

struct TimeRange {
  std::int64_t start = 0;
  std::int64_t end = 1;  // end > start
  std::int64_t length() const { return end - start; }
};

// x of time t in a plot `width` px wide showing `r`.
inline double timeToPx(const TimeRange& r, double width, std::int64_t t) {
  return static_cast<double>(t - r.start) * width / static_cast<double>(r.length());
}

// The time at x; the inverse of timeToPx up to rounding.
inline std::int64_t pxToTime(const TimeRange& r, double width, double x) {
  return r.start + static_cast<std::int64_t>(x * static_cast<double>(r.length()) / width);
}

// Zooms by `factor` (< 1 zooms in) keeping the time under x fixed; never narrower than
// `minLength` ns nor wider than `limit`.
inline TimeRange zoomAround(const TimeRange& r, double width, double x, double factor,
                            std::int64_t minLength, const TimeRange& limit) {
  const std::int64_t anchor = pxToTime(r, width, x);
  auto length = static_cast<std::int64_t>(static_cast<double>(r.length()) * factor);
  if (length < minLength) length = minLength;
  if (length > limit.length()) length = limit.length();
  std::int64_t start = anchor - static_cast<std::int64_t>(x / width * static_cast<double>(length));
  if (start < limit.start) start = limit.start;
  if (start + length > limit.end) start = limit.end - length;
  return {start, start + length};
}

// Moves the range by `dx` pixels (positive = later), kept inside `limit`.
inline TimeRange panByPx(const TimeRange& r, double width, double dx, const TimeRange& limit) {
  const auto shift = static_cast<std::int64_t>(dx * static_cast<double>(r.length()) / width);
  std::int64_t start = r.start + shift;
  if (start < limit.start) start = limit.start;
  if (start + r.length() > limit.end) start = limit.end - r.length();
  return {start, start + r.length()};
}

// A tick step of 1, 2 or 5 × 10^k ns giving ticks at least `minPx` apart.
inline std::int64_t tickStep(const TimeRange& r, double width, double minPx) {
  const double nsPerPx = static_cast<double>(r.length()) / width;
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
