#pragma once
// "At most one primitive per pixel" as a data query (DESIGN §7.3): the ops of one lane between
// t0 and t1, discretised for a view `widthPx` wide. Ops at least `minPx` wide come back one by
// one; runs of narrower ops fold into one item that covers them and carries their count.
// The query jumps to the next pixel boundary after each item, so its cost is O(width · log n),
// not O(ops in range).

#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::trace {

struct LaneItem {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::size_t first = 0;    // index of the first op in the lane
  std::size_t count = 1;    // ops covered (1 = a single op; more = a fold)
  OpKind kind = OpKind::F;  // the single op's kind, or the widest folded op's kind
};

std::vector<LaneItem> queryLane(const OpColumns& lane, std::int64_t t0, std::int64_t t1,
                                double widthPx, double minPx = 3.0);

// Memory drawn per pixel column: min and max bytes in use within each column (DESIGN §7.3).
struct MemoryColumn {
  std::int64_t minBytes = 0;
  std::int64_t maxBytes = 0;
  bool valid = false;
};
std::vector<MemoryColumn> queryMemory(const MemorySeries& series, std::int64_t t0, std::int64_t t1,
                                      int widthPx);

}  // namespace ps::trace
