#pragma once
// A multi-resolution summary of one lane that lets a fold skip ahead exactly (DESIGN §7.3).
// Per block of 64 ops, per block of 64 such blocks, and so on: the latest end, the longest
// duration and the largest "break key" of the ops inside, where an op's key is the larger of its
// duration and the idle gap before it (its start minus the latest end of every earlier op in the
// lane). A fold for threshold m runs on while keys stay below m, so any block whose largest key
// is below m is absorbed whole. Level 0 also keeps the latest end before each block, for finding
// the first op still visible at a time. About 0.5 bytes per op.

#include <cstdint>
#include <limits>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/WideTime.h"

namespace ps::trace {

class LaneIndex {
 public:
  static constexpr std::size_t kFan = 64;
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();

  LaneIndex() = default;
  // O(n). `lane` must be sorted by start; the index keeps no pointer to it, so every query must
  // pass the same, unchanged lane.
  explicit LaneIndex(const OpColumns& lane);

  // Where a scan from the first op that ends after t begins: that op's index (lane.size() when
  // none does) and the latest end of every op before it (kNone when there is none).
  struct Cursor {
    std::size_t index = 0;
    std::int64_t endBefore = kNone;
  };
  Cursor firstEndingAfter(const OpColumns& lane, std::int64_t t) const;

  // The run a fold absorbs: from `c.index` up to the first op before `stop` whose key is at
  // least `minNs` (or `stop`). Moves `c` past the run; returns the run's latest end (kNone when
  // empty) and its first longest op (its index, or `stop` when empty).
  struct Run {
    std::int64_t maxEnd = kNone;
    std::int64_t widestDuration = -1;
    std::size_t widest = 0;
  };
  Run absorb(const OpColumns& lane, Cursor& c, std::size_t stop, std::int64_t minNs) const;

  std::size_t ops() const { return ops_; }
  std::size_t bytes() const;

 private:
  struct Block {
    std::int64_t maxEnd = kNone;
    std::int64_t maxKey = kNone;
    std::int64_t maxDuration = -1;
  };
  std::size_t widestIn(const OpColumns& lane, std::size_t level, std::size_t block,
                       std::int64_t duration) const;

  std::size_t ops_ = 0;
  std::vector<std::int64_t> endBefore_;     // per level-0 block
  std::vector<std::vector<Block>> levels_;  // levels_[L][b] covers ops [b·64^(L+1), …)
};

// Op i's duration, clamped to INT64_MAX (an op from INT64_MIN to INT64_MAX is that long).
inline std::int64_t durationOf(const OpColumns& lane, std::size_t i) {
  return satSub(lane.end[i], lane.start[i]);
}

// The key of op i given the latest end of the ops before it (kNone: the first op, no gap).
// Saturating: ops at the ends of the int64 range give the largest key, not a wrapped one.
inline std::int64_t breakKey(const OpColumns& lane, std::size_t i, std::int64_t endBefore) {
  const std::int64_t duration = durationOf(lane, i);
  if (endBefore == LaneIndex::kNone) return std::numeric_limits<std::int64_t>::max();
  const std::int64_t gap = satSub(lane.start[i], endBefore);
  return gap > duration ? gap : duration;
}

}  // namespace ps::trace
