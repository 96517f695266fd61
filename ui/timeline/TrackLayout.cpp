#include "ui/timeline/TrackLayout.h"

#include <algorithm>

namespace ps::ui {

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

int TrackLayout::trackHeight(int rank) const {
  if (!valid(rank)) return 0;
  if (collapsed_[rank]) return kThin + 2 * kThinPad;
  return 2 * kPad + depth_[rank] * kRow + 2 * kComm;
}

int TrackLayout::pinnedHeight() const {
  int h = 0;
  for (int r = 0; r < ranks(); ++r)
    if (pinned_[r]) h += trackHeight(r);
  return h;
}

int TrackLayout::scrolledHeight() const {
  int h = 0;
  for (int r = 0; r < ranks(); ++r)
    if (!pinned_[r]) h += trackHeight(r);
  return h;
}

int TrackLayout::maxOffset(int viewport) const {
  return std::max(0, scrolledHeight() - std::max(0, viewport - pinnedHeight()));
}

int TrackLayout::scrolledTop(int rank) const {
  int y = 0;
  for (int r = 0; r < rank && r < ranks(); ++r)
    if (!pinned_[r]) y += trackHeight(r);
  return y;
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
    t.computeTop = top + kPad;
    t.depthRows = depth_[rank];
    t.rowHeight = kRow;
    t.computeHeight = t.depthRows * kRow;
    t.commTop = t.computeBottom();
  }
  return t;
}

std::vector<Track> TrackLayout::place(int top, int bottom, int offset) const {
  std::vector<Track> out;
  int y = top;
  for (int r = 0; r < ranks() && y < bottom; ++r) {
    if (!pinned_[r]) continue;
    Track t = shape(r, y);
    t.clipTop = y;
    t.clipBottom = std::min(bottom, y + t.height);
    out.push_back(t);
    y += t.height;
  }
  const int scrollTop = std::min(y, bottom);
  y = scrollTop - std::max(0, offset);
  for (int r = 0; r < ranks() && y < bottom; ++r) {
    if (pinned_[r]) continue;
    const int h = trackHeight(r);
    if (y + h > scrollTop) {
      Track t = shape(r, y);
      t.clipTop = std::max(y, scrollTop);
      t.clipBottom = std::min(bottom, y + h);
      out.push_back(t);
    }
    y += h;
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
