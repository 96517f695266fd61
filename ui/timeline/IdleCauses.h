#pragma once
// The bubble's causes on the timeline (trace/analysis/BubbleAttribution): a brush per cause for
// the idle parts of each compute row, an index to find a rank's parts in a time range, and the
// hover lines that say what a gap waited for ("1.000 µs dependency: waiting for 2B3 on rank 2").

#include <QBrush>
#include <QString>

#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/BubbleAttribution.h"

namespace ps::ui {

// Tints for warm-up / drain / dependency, hatches over a tint for the causes a better plan
// removes (transfer, imbalance, barrier, other).
QBrush idleCauseBrush(trace::IdleCause cause, bool dark);
QColor idleCauseColour(trace::IdleCause cause, bool dark);

// Per rank, the attribution's parts ordered by start, for painting what is in view.
class IdleCauseIndex {
 public:
  IdleCauseIndex() = default;
  explicit IdleCauseIndex(const trace::BubbleAttribution& bubbles);
  // Calls fn(part) for every part of `rank` that overlaps [from, to).
  template <class Fn>
  void forEachIn(int rank, std::int64_t from, std::int64_t to, Fn&& fn) const {
    if (rank < 0 || static_cast<std::size_t>(rank) >= byStart_.size()) return;
    const auto& parts = byStart_[rank];
    std::size_t lo = 0, hi = parts.size();
    const std::int64_t earliest = from - maxLength_[rank];
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (parts[mid]->start < earliest)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (std::size_t i = lo; i < parts.size() && parts[i]->start < to; ++i)
      if (parts[i]->end > from) fn(*parts[i]);
  }

 private:
  std::vector<std::vector<const trace::IdlePart*>> byStart_;
  std::vector<std::int64_t> maxLength_;
};

// The hover lines for the idle time [from, to) of `rank`: one per part, cause and what it waited
// for; empty when the attribution has no part there.
QString idleCauseLines(const trace::RunTrace& run, const IdleCauseIndex& index, int rank,
                       std::int64_t from, std::int64_t to);

}  // namespace ps::ui
