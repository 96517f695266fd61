#include "trace/analysis/LaneQuery.h"

#include <algorithm>
#include <cmath>

namespace ps::trace {

namespace {
// First index >= from whose start is >= t, searched outwards from `from` (galloping): the next
// pixel boundary is usually a few ops away, so this costs O(log distance), not O(log n).
std::size_t gallopStart(const OpColumns& lane, std::size_t from, std::int64_t t) {
  const std::size_t n = lane.size();
  std::size_t lo = from, step = 1;
  while (lo + step < n && lane.start[lo + step] < t) {
    lo += step;
    step *= 2;
  }
  const std::size_t hi = std::min(n, lo + step + 1);
  return static_cast<std::size_t>(
      std::lower_bound(lane.start.begin() + static_cast<std::ptrdiff_t>(lo),
                       lane.start.begin() + static_cast<std::ptrdiff_t>(hi), t) -
      lane.start.begin());
}
}  // namespace

std::vector<LaneItem> queryLane(const OpColumns& lane, std::int64_t t0, std::int64_t t1,
                                double widthPx, double minPx) {
  std::vector<LaneItem> out;
  if (lane.empty() || t1 <= t0 || widthPx <= 0) return out;
  const double nsPerPx = static_cast<double>(t1 - t0) / widthPx;
  const auto minNs = static_cast<std::int64_t>(std::ceil(minPx * nsPerPx));
  // Start at the first op that may still be visible at t0: ops in a lane rarely nest, so a
  // short backward walk from the first op starting at or after t0 finds any that overlap it.
  std::size_t i = lane.lowerBoundStart(t0);
  while (i > 0 && lane.end[i - 1] > t0)
    --i;
  while (i < lane.size() && lane.start[i] < t1) {
    if (lane.end[i] <= t0) {
      ++i;
      continue;
    }
    LaneItem item{lane.start[i], lane.end[i], i, 1, lane.kind[i]};
    if (lane.end[i] - lane.start[i] >= minNs) {
      out.push_back(item);
      ++i;
      continue;
    }
    // Fold: absorb the following ops while they are narrow and start within minNs of the fold's
    // end. After a handful taken one by one, jump with a binary search to the next pixel
    // boundary and take everything before it wholesale (Tracy's trick), so a dense run of tiny
    // ops costs O(log n) per pixel, not O(ops).
    std::int64_t widest = lane.end[i] - lane.start[i];
    std::size_t j = i + 1;
    int oneByOne = 0;
    while (j < lane.size() && lane.start[j] < t1 && lane.start[j] < item.end + minNs &&
           lane.end[j] - lane.start[j] < minNs) {
      if (++oneByOne > 8) {
        const double px = std::floor(static_cast<double>(item.end - t0) / nsPerPx) + 1.0;
        const auto boundary = t0 + static_cast<std::int64_t>(std::ceil(px * nsPerPx));
        const std::size_t k = std::max(gallopStart(lane, j, boundary), j + 1);
        item.end = std::max(item.end, lane.end[k - 1]);
        item.count += k - j;
        j = k;
        oneByOne = 0;
        continue;
      }
      item.end = std::max(item.end, lane.end[j]);
      if (lane.end[j] - lane.start[j] > widest) {
        widest = lane.end[j] - lane.start[j];
        item.kind = lane.kind[j];
      }
      ++item.count;
      ++j;
    }
    out.push_back(item);
    i = j;
  }
  return out;
}

std::vector<MemoryColumn> queryMemory(const MemorySeries& series, std::int64_t t0, std::int64_t t1,
                                      int widthPx) {
  std::vector<MemoryColumn> cols(std::max(widthPx, 0));
  if (series.size() == 0 || t1 <= t0 || widthPx <= 0) return cols;
  const double nsPerPx = static_cast<double>(t1 - t0) / widthPx;
  // The value in force at t0 comes from the last sample at or before it.
  auto it = std::upper_bound(series.t.begin(), series.t.end(), t0);
  std::size_t i = static_cast<std::size_t>(it - series.t.begin());
  std::int64_t current = i > 0 ? series.bytes[i - 1] : -1;
  for (int px = 0; px < widthPx; ++px) {
    const auto colEnd = t0 + static_cast<std::int64_t>((px + 1) * nsPerPx);
    MemoryColumn c;
    if (current >= 0) c = {current, current, true};
    while (i < series.size() && series.t[i] < colEnd) {
      current = series.bytes[i++];
      if (!c.valid) c = {current, current, true};
      c.minBytes = std::min(c.minBytes, current);
      c.maxBytes = std::max(c.maxBytes, current);
    }
    cols[px] = c;
  }
  return cols;
}

}  // namespace ps::trace
