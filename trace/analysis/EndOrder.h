#pragma once
// One lane's ops of every rank ordered by (step, end): which op of a step ended last at or before
// a time on a rank — what an op that started then could have waited for on that lane (the
// all-reduce before an optimizer step, the fetch before a forward, the compute before an
// all-to-all). Built once, O(n log n); each question is a binary search.

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::trace {

class EndOrder {
 public:
  EndOrder(const RunTrace& run, Lane lane);

  bool empty() const { return empty_; }
  // The op of `lane` on `rank` with this step that began before t and ended last at or before it
  // (of equal ends, the latest in lane order); nullopt when none did. Ops that began at t (an
  // instant one ending there) are stepped over, one by one.
  std::optional<OpRef> lastEndedBy(int rank, std::int32_t step, std::int64_t t) const;

 private:
  struct Entry {
    std::int32_t step;
    std::int64_t end;
    std::int64_t start;
    std::size_t index;
  };
  Lane lane_;
  bool empty_ = true;
  std::vector<std::vector<Entry>> ranks_;  // sorted by (step, end, index)
};

}  // namespace ps::trace
