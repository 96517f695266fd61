#pragma once
// Bounds on an import's times (issue 30, item 9). Times are int64 nanoseconds, and the import
// shifts them (clock offsets, the common origin): a timestamp near +-2^63 (a corrupt Kineto
// "ts", an nsys NVTX row written at INT64_MIN) wrapped into ops that end before they start. A
// profile spans seconds to days, so an import whose times span more than kMaxImportSpanNs is
// refused with the file and the event that lies out, and every shift is checked.

#include <cstdint>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/import/OpBuilder.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// 2^52 ns, about 52 days: beyond any profile, and far enough below 2^63 that sums and
// differences of a run's times cannot wrap.
inline constexpr std::int64_t kMaxImportSpanNs = std::int64_t{1} << 52;

// Refuses a profile whose events, steps and memory samples span more than kMaxImportSpanNs,
// naming the file and the event farthest from the others ("a corrupt timestamp?").
Status checkTimeSpan(const RawRankTrace& trace);

// Before clock alignment: refuses ranks whose times (each on its own clock) lie more than
// kMaxClockWindowNs apart, so that the alignment's differences and offsets cannot wrap.
// Clocks of one run differ by the epoch at most (legacy Kineto times are epoch microseconds,
// ~1.8e18 ns today, others start near 0).
inline constexpr std::int64_t kMaxClockWindowNs = std::int64_t{1} << 61;
Status checkClockWindow(const std::vector<RankOps>& ranks, const std::vector<std::string>& files);

// Adds each rank's clock offset to its ops and samples, checked: an op moved out of the int64
// range is refused naming `files[r]` and the op. Then refuses a run whose aligned times span
// more than kMaxImportSpanNs (the files' clocks then disagree by more than any real skew).
Status shiftByOffsets(std::vector<RankOps>& ranks, const std::vector<std::int64_t>& offsetNs,
                      const std::vector<std::string>& files);

}  // namespace ps::trace::import
