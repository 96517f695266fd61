#include "trace/analysis/LaneIndex.h"

#include <algorithm>

namespace ps::trace {

LaneIndex::LaneIndex(const OpColumns& lane) : ops_(lane.size()) {
  if (ops_ == 0) return;
  const std::size_t blocks = (ops_ + kFan - 1) / kFan;
  endBefore_.resize(blocks);
  std::vector<Block> level(blocks);
  std::int64_t latest = kNone;
  for (std::size_t b = 0; b < blocks; ++b) {
    endBefore_[b] = latest;
    Block& block = level[b];
    for (std::size_t i = b * kFan; i < std::min(ops_, (b + 1) * kFan); ++i) {
      block.maxKey = std::max(block.maxKey, breakKey(lane, i, latest));
      block.maxDuration = std::max(block.maxDuration, durationOf(lane, i));
      block.maxEnd = std::max(block.maxEnd, lane.end[i]);
      latest = std::max(latest, lane.end[i]);
    }
  }
  levels_.push_back(std::move(level));
  while (levels_.back().size() > 1) {
    const auto& below = levels_.back();
    std::vector<Block> above((below.size() + kFan - 1) / kFan);
    for (std::size_t c = 0; c < below.size(); ++c) {
      Block& parent = above[c / kFan];
      parent.maxKey = std::max(parent.maxKey, below[c].maxKey);
      parent.maxDuration = std::max(parent.maxDuration, below[c].maxDuration);
      parent.maxEnd = std::max(parent.maxEnd, below[c].maxEnd);
    }
    levels_.push_back(std::move(above));
  }
}

LaneIndex::Cursor LaneIndex::firstEndingAfter(const OpColumns& lane, std::int64_t t) const {
  if (ops_ == 0) return {};
  // endBefore_ rises with the block; endBefore_[0] = kNone <= t, so b is a valid block.
  const std::size_t b = static_cast<std::size_t>(
      std::upper_bound(endBefore_.begin(), endBefore_.end(), t) - endBefore_.begin() - 1);
  Cursor c{b * kFan, endBefore_[b]};
  for (; c.index < std::min(ops_, (b + 1) * kFan); ++c.index) {
    if (lane.end[c.index] > t) return c;
    c.endBefore = std::max(c.endBefore, lane.end[c.index]);
  }
  return c;  // only when b is the last block: nothing ends after t
}

LaneIndex::Run LaneIndex::absorb(const OpColumns& lane, Cursor& c, std::size_t stop,
                                 std::int64_t minNs) const {
  Run run;
  run.widest = stop;
  std::size_t widestLevel = 0, widestBlock = 0;
  bool widestIsBlock = false;
  std::size_t j = c.index;
  std::int64_t latest = c.endBefore;
  while (j < stop) {
    // The largest aligned block starting at j that ends by `stop` and holds no break.
    bool skipped = false;
    for (std::size_t level = levels_.size(); level-- > 0 && !skipped;) {
      std::size_t size = kFan;
      for (std::size_t k = 0; k < level; ++k)
        size *= kFan;
      if (j % size != 0 || std::min(j + size, ops_) > stop) continue;
      const Block& block = levels_[level][j / size];
      if (block.maxKey >= minNs) continue;
      run.maxEnd = std::max(run.maxEnd, block.maxEnd);
      if (block.maxDuration > run.widestDuration) {
        run.widestDuration = block.maxDuration;
        widestIsBlock = true;
        widestLevel = level;
        widestBlock = j / size;
      }
      latest = std::max(latest, block.maxEnd);
      j = std::min(j + size, ops_);
      skipped = true;
    }
    if (skipped) continue;
    if (breakKey(lane, j, latest) >= minNs) break;
    if (durationOf(lane, j) > run.widestDuration) {
      run.widestDuration = durationOf(lane, j);
      widestIsBlock = false;
      run.widest = j;
    }
    run.maxEnd = std::max(run.maxEnd, lane.end[j]);
    latest = std::max(latest, lane.end[j]);
    ++j;
  }
  if (widestIsBlock) run.widest = widestIn(lane, widestLevel, widestBlock, run.widestDuration);
  c = {j, latest};
  return run;
}

std::size_t LaneIndex::widestIn(const OpColumns& lane, std::size_t level, std::size_t block,
                                std::int64_t duration) const {
  // Descend to the first child holding the duration, down to the op itself.
  for (;;) {
    if (level == 0) {
      for (std::size_t i = block * kFan; i < std::min(ops_, (block + 1) * kFan); ++i)
        if (durationOf(lane, i) == duration) return i;
      return block * kFan;  // unreachable for an index built from this lane
    }
    const auto& below = levels_[level - 1];
    std::size_t child = block * kFan;
    while (child + 1 < std::min(below.size(), (block + 1) * kFan) &&
           below[child].maxDuration != duration)
      ++child;
    block = child;
    --level;
  }
}

std::size_t LaneIndex::bytes() const {
  std::size_t n = sizeof(*this) + endBefore_.capacity() * sizeof(std::int64_t);
  for (const auto& level : levels_)
    n += level.capacity() * sizeof(Block) + sizeof(level);
  return n;
}

}  // namespace ps::trace
