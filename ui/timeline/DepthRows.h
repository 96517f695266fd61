#pragma once
// Nested ranges of imported traces as rows (Perfetto's and Nsight's depth rows): ops of one
// rank's compute and "other" lanes that overlap are stacked by nesting depth, an enclosing range
// (a "backward" annotation) above the kernels inside it, instead of being painted over each
// other. Built once per run; each depth row is a lane of its own (sorted by start, with its own
// LaneIndex), so the per-pixel folding works per row as on any lane (DESIGN §7.3). Ranks without
// overlap get no rows: the view draws their lanes as they are.

#include <array>
#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/LaneIndex.h"

namespace ps::ui {

class DepthRows {
 public:
  struct OpRef {
    trace::Lane lane;
    std::uint32_t index;
  };

  DepthRows() = default;
  // Rows for `rank`'s Compute and Other lanes, at most `maxRows` (deeper ops share the last).
  DepthRows(const trace::RankTrace& rank, int maxRows);

  // 1 when nothing overlaps (then there are no row lanes).
  int rows() const { return rows_.empty() ? 1 : static_cast<int>(rows_.size()); }
  bool nested() const { return !rows_.empty(); }
  const trace::OpColumns& lane(int row) const { return rows_[row]; }
  const trace::LaneIndex& index(int row) const { return indexes_[row]; }
  // The original op behind entry i of row `row`.
  OpRef source(int row, std::size_t i) const { return sources_[row][i]; }
  // Row and position in it of an op of the Compute or Other lane ({0, index} when not nested).
  struct Place {
    int row = 0;
    std::size_t index = 0;
  };
  Place placeOf(trace::Lane lane, std::size_t index) const;
  std::size_t bytes() const;

 private:
  std::vector<trace::OpColumns> rows_;
  std::vector<trace::LaneIndex> indexes_;
  std::vector<std::vector<OpRef>> sources_;
  // Per original op of Compute (0) and Other (1): its row and position there.
  std::array<std::vector<std::uint8_t>, 2> rowOf_;
  std::array<std::vector<std::uint32_t>, 2> positionOf_;
};

}  // namespace ps::ui
