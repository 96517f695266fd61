#pragma once
// "At most one primitive per pixel" as a data query (DESIGN §7.3): the ops of one lane between
// t0 and t1, discretised for a view `widthPx` wide. Ops at least `minPx` wide come back one by
// one; an op narrower than that starts a fold that absorbs the following ops for as long as each
// is narrower than `minPx` and starts less than `minPx` after the latest end of all earlier ops
// (so ops nested in a long one open no gap), and comes back as one item carrying their count.
// With the lane's LaneIndex a fold skips whole blocks, so a query costs O(log n + items · 64 ·
// levels), not O(ops in range); items are at most about two per `minPx` pixels, plus ops that
// overlap.

#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/LaneIndex.h"

namespace ps::trace {

struct LaneItem {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::size_t first = 0;    // index of the first op in the lane
  std::size_t count = 1;    // ops covered (1 = a single op; more = a fold)
  OpKind kind = OpKind::F;  // the single op's kind, or the first widest folded op's kind
};

// `index` is LaneIndex(lane); one built from another lane size gives no items.
std::vector<LaneItem> queryLane(const OpColumns& lane, const LaneIndex& index, std::int64_t t0,
                                std::int64_t t1, double widthPx, double minPx = 3.0);
// The same without a prebuilt index: builds one first, O(ops in the lane). For one-off queries.
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
