#pragma once
// Where each rank's track sits in the timeline: pinned tracks first, just under the time axis and
// never scrolled, then the others in rank order, moved up by the vertical offset and clipped below
// the pinned ones. A track is a compute band (one row per nesting depth) over a send/recv band,
// or, collapsed, one thin row. Pure integer maths, no widget (tested on its own).
// Every query costs O(log ranks + tracks returned) (a prefix sum of heights, rebuilt once per
// change): a paint never walks a million ranks' tracks (issue 12 case 7).

#include <cstdint>
#include <vector>

namespace ps::ui {

struct Track {
  int rank = 0;
  int top = 0;            // the track's first pixel (may be above clipTop when scrolled)
  int computeTop = 0;     // first row of the compute band
  int computeHeight = 0;  // all of its depth rows
  int rowHeight = 0;      // one depth row
  int depthRows = 1;
  int commTop = 0;     // send row; the receive row follows; none when collapsed
  int commHeight = 0;  // each of the send and receive rows
  int height = 0;
  bool pinned = false;
  bool collapsed = false;
  int clipTop = 0, clipBottom = 0;  // the pixels of the view the track may paint: [top, bottom)
  int computeBottom() const { return computeTop + computeHeight; }
};

class TrackLayout {
 public:
  static constexpr int kPad = 4;      // above the compute band, below the receive row
  static constexpr int kRow = 24;     // one compute row
  static constexpr int kComm = 7;     // the send row and the receive row
  static constexpr int kThin = 6;     // a collapsed track's only row
  static constexpr int kThinPad = 2;  // around it
  static constexpr int kMaxDepthRows = 6;
  // Compact tracks (two runs compared one above the other, each pane showing all of a small
  // run's ranks): lower compute rows, thin send/recv rows.
  static constexpr int kCompactPad = 2;
  static constexpr int kCompactRow = 16;
  static constexpr int kCompactComm = 2;

  // `ranks` tracks, all expanded, unpinned, one compute row each.
  void reset(int ranks);
  int ranks() const { return static_cast<int>(collapsed_.size()); }
  void setDepthRows(int rank, int rows);
  int depthRows(int rank) const;
  void setCollapsed(int rank, bool collapsed);
  bool isCollapsed(int rank) const;
  void setPinned(int rank, bool pinned);
  bool isPinned(int rank) const;
  // Every track compact (kCompact*) or not; kept over reset().
  void setCompact(bool compact);
  bool isCompact() const { return compact_; }
  int rowHeight() const { return compact_ ? kCompactRow : kRow; }
  int commHeight() const { return compact_ ? kCompactComm : kComm; }
  int pad() const { return compact_ ? kCompactPad : kPad; }
  // Bumped by every change that moves a track (for caches keyed on the layout).
  std::uint64_t generation() const { return generation_; }

  int trackHeight(int rank) const;
  int pinnedHeight() const;
  int scrolledHeight() const;  // all unpinned tracks together
  // The largest useful offset for scrolled tracks shown in `viewport` px below the pinned ones.
  int maxOffset(int viewport) const;

  // The tracks that show at least one pixel between `top` and `bottom`, pinned ones first.
  std::vector<Track> place(int top, int bottom, int offset) const;
  // The offset, closest to `offset`, at which `rank`'s whole track shows (pinned: `offset`).
  int offsetShowing(int rank, int offset, int viewport) const;
  // The unscrolled position of an unpinned rank's track within the scrolled tracks.
  int scrolledTop(int rank) const;

 private:
  bool valid(int rank) const { return rank >= 0 && rank < ranks(); }
  Track shape(int rank, int top) const;
  // Rebuilds the prefix sums below when the layout changed since they were built.
  void refresh() const;

  std::vector<bool> collapsed_, pinned_;
  std::vector<int> depth_;
  bool compact_ = false;
  std::uint64_t generation_ = 0;
  // scrolledTop_[r]: the heights of the unpinned tracks before r (size ranks + 1); the pinned
  // ranks in order and their heights together. Valid for cachedGeneration_.
  mutable std::vector<std::int64_t> scrolledTop_;
  mutable std::vector<int> pinnedRanks_;
  mutable std::int64_t pinnedHeight_ = 0;
  mutable std::uint64_t cachedGeneration_ = ~std::uint64_t{0};
};

}  // namespace ps::ui
