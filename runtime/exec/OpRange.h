#pragma once
// RankWorker's profiler ranges (internal to runtime/exec): the range of one op while its work is
// issued, closed on every way out.

#include "runtime/exec/OpClock.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime {

// The profiler range of one op while its work is issued (RankWorker's clock may open none).
class ScopedRange {
 public:
  ScopedRange(OpClock* clock, OpKind kind, const Action& a) : clock_(clock) {
    if (clock_) clock_->beginRange(kind, a);
  }
  ~ScopedRange() {
    if (clock_) clock_->endRange();
  }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  OpClock* clock_;
};

}  // namespace ps::runtime
