#pragma once
// Which compute ops a selected one depends on and which wait for it, read from the schedule's
// rules (F(s,m) <- F(s-1,m); B/I(s,m) <- B/I(s+1,m) and F(s,m); W(s,m) <- I(s,m)) over every
// rank's compute lane: the timeline's selection arrows. A scan of the run: computed once per
// selection, never per paint.

#include <utility>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::ui {

struct OpDependencies {
  std::vector<std::pair<int, std::size_t>> in;   // (rank, index in its compute lane)
  std::vector<std::pair<int, std::size_t>> out;  // the ops that wait for it
};

// Empty for an op outside the compute lane or without a stage and micro-batch.
OpDependencies opDependencies(const trace::RunTrace& run, int rank, trace::Lane lane,
                              std::size_t index);

}  // namespace ps::ui
