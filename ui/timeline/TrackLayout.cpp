#include "ui/timeline/TrackLayout.h"

#include <algorithm>
#include <climits>

namespace ps::ui {
namespace {
int clampToInt(std::int64_t v) {
  return static_cast<int>(std::clamp<std::int64_t>(v, INT_MIN, INT_MAX));
}
}  // namespace

void TrackLayout::reset(int ranks) {
  ranks = std::max(0, ranks);
  collapsed_.assign(ranks, false);
  pinned_.assign(ranks, false);
  depth_.assign(ranks, 1);
  ++generation_;
}

void TrackLayout::setDepthRows(int rank, int rows) {
  if (!valid(rank)) return;
  rows = std::clamp(rows, 1, kMaxDepthRows);
  if (depth_[rank] == rows) return;
  depth_[rank] = rows;
  ++generation_;
}

int TrackLayout::depthRows(int rank) const {
  return valid(rank) ? depth_[rank] : 1;
}

void TrackLayout::setCollapsed(int rank, bool collapsed) {
  if (!valid(rank) || collapsed_[rank] == collapsed) return;
  collapsed_[rank] = collapsed;
  ++generation_;
}

bool TrackLayout::isCollapsed(int rank) const {
  return valid(rank) && collapsed_[rank];
}

void TrackLayout::setPinned(int rank, bool pinned) {
  if (!valid(rank) || pinned_[rank] == pinned) return;
  pinned_[rank] = pinned;
  ++generation_;
}

bool TrackLayout::isPinned(int rank) const {
  return valid(rank) && pinned_[rank];
}

void TrackLayout::setCompact(bool compact) {
  if (compact_ == compact) return;
  compact_ = compact;
  ++generation_;
}

int TrackLayout::trackHeight(int rank) const {
  if (!valid(rank)) return 0;
  if (collapsed_[rank]) return kThin + 2 * kThinPad;
  return 2 * pad() + depth_[rank] * rowHeight() + 2 * commHeight();
}

void TrackLayout::refresh() const {
  if (cachedGeneration_ == generation_ && scrolledTop_.size() == collapsed_.size() + 1) return;
  const int n = ranks();
  scrolledTop_.assign(static_cast<std::size_t>(n) + 1, 0);
  pinnedRanks_.clear();
  pinnedHeight_ = 0;
  for (int r = 0; r < n; ++r) {
    const std::int64_t h = trackHeight(r);
    scrolledTop_[r + 1] = scrolledTop_[r] + (pinned_[r] ? 0 : h);
    if (pinned_[r]) {
      pinnedRanks_.push_back(r);
      pinnedHeight_ += h;
    }
  }
  cachedGeneration_ = generation_;
}

int TrackLayout::pinnedHeight() const {
  refresh();
  return clampToInt(pinnedHeight_);
}

int TrackLayout::scrolledHeight() const {
  refresh();
  return clampToInt(scrolledTop_.back());
}

int TrackLayout::maxOffset(int viewport) const {
  return std::max(0, scrolledHeight() - std::max(0, viewport - pinnedHeight()));
}

int TrackLayout::scrolledTop(int rank) const {
  refresh();
  return clampToInt(scrolledTop_[std::clamp(rank, 0, ranks())]);
}

Track TrackLayout::shape(int rank, int top) const {
  Track t;
  t.rank = rank;
  t.top = top;
  t.height = trackHeight(rank);
  t.pinned = pinned_[rank];
  t.collapsed = collapsed_[rank];
  if (t.collapsed) {
    t.computeTop = top + kThinPad;
    t.rowHeight = t.computeHeight = kThin;
    t.depthRows = 1;
    t.commTop = t.computeBottom();
  } else {
    t.computeTop = top + pad();
    t.depthRows = depth_[rank];
    t.rowHeight = rowHeight();
    t.computeHeight = t.depthRows * t.rowHeight;
    t.commTop = t.computeBottom();
    t.commHeight = commHeight();
  }
  return t;
}

std::vector<Track> TrackLayout::place(int top, int bottom, int offset) const {
  refresh();
  std::vector<Track> out;
  int y = top;
  for (std::size_t k = 0; k < pinnedRanks_.size() && y < bottom; ++k) {
    Track t = shape(pinnedRanks_[k], y);
    t.clipTop = y;
    t.clipBottom = std::min(bottom, y + t.height);
    out.push_back(t);
    y += t.height;
  }
  const int scrollTop = std::min(y, bottom);
  const std::int64_t from = std::max(0, offset);
  // The first unpinned track whose bottom is below the offset: its prefix sum steps past it.
  const auto first = std::upper_bound(scrolledTop_.begin() + 1, scrolledTop_.end(), from);
  for (int r = static_cast<int>(first - scrolledTop_.begin()) - 1; r >= 0 && r < ranks(); ++r) {
    if (pinned_[r]) continue;
    const std::int64_t y64 = scrollTop + scrolledTop_[r] - from;
    if (y64 >= bottom) break;
    const int ty = static_cast<int>(y64), h = trackHeight(r);
    Track t = shape(r, ty);
    t.clipTop = std::max(ty, scrollTop);
    t.clipBottom = std::min(bottom, ty + h);
    out.push_back(t);
  }
  return out;
}

int TrackLayout::offsetShowing(int rank, int offset, int viewport) const {
  if (!valid(rank) || pinned_[rank]) return offset;
  const int page = std::max(0, viewport - pinnedHeight());
  const int top = scrolledTop(rank), h = trackHeight(rank);
  if (top < offset) return top;
  if (top + h > offset + page) return std::min(top, top + h - page);
  return offset;
}

}  // namespace ps::ui
