#include "trace/analysis/LaneQuery.h"

#include <algorithm>
#include <cmath>

namespace ps::trace {

std::vector<LaneItem> queryLane(const OpColumns& lane, const LaneIndex& index, std::int64_t t0,
                                std::int64_t t1, double widthPx, double minPx) {
  std::vector<LaneItem> out;
  if (lane.empty() || t1 <= t0 || widthPx <= 0 || index.ops() != lane.size()) return out;
  const double nsPerPx = (static_cast<double>(t1) - static_cast<double>(t0)) / widthPx;
  const double minNsF = std::ceil(minPx * nsPerPx);
  const std::int64_t minNs =
      minNsF >= 0x1p63 ? INT64_MAX : std::max<std::int64_t>(1, static_cast<std::int64_t>(minNsF));
  const std::size_t stop = lane.lowerBoundStart(t1);
  LaneIndex::Cursor c = index.firstEndingAfter(lane, t0);
  while (c.index < stop) {
    const std::size_t i = c.index;
    c.endBefore = std::max(c.endBefore, lane.end[i]);
    ++c.index;
    if (lane.end[i] <= t0) continue;  // inside an earlier op, left of the range
    LaneItem item{lane.start[i], lane.end[i], i, 1, lane.kind[i]};
    const std::int64_t duration = durationOf(lane, i);
    if (duration < minNs) {
      const LaneIndex::Run run = index.absorb(lane, c, stop, minNs);
      item.end = std::max(item.end, run.maxEnd);
      item.count = c.index - i;
      if (run.widestDuration > duration) item.kind = lane.kind[run.widest];
    }
    out.push_back(item);
  }
  return out;
}

std::vector<LaneItem> queryLane(const OpColumns& lane, std::int64_t t0, std::int64_t t1,
                                double widthPx, double minPx) {
  return queryLane(lane, LaneIndex(lane), t0, t1, widthPx, minPx);
}

std::vector<MemoryColumn> queryMemory(const MemorySeries& series, std::int64_t t0, std::int64_t t1,
                                      int widthPx) {
  std::vector<MemoryColumn> cols(std::max(widthPx, 0));
  if (series.size() == 0 || t1 <= t0 || widthPx <= 0) return cols;
  const double nsPerPx = differenceOf(t1, t0) / widthPx;
  // The value in force at t0 comes from the last sample at or before it.
  auto it = std::upper_bound(series.t.begin(), series.t.end(), t0);
  std::size_t i = static_cast<std::size_t>(it - series.t.begin());
  std::int64_t current = i > 0 ? series.bytes[i - 1] : -1;
  for (int px = 0; px < widthPx; ++px) {
    const std::int64_t colEnd = timePlus(t0, (px + 1) * nsPerPx);
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
