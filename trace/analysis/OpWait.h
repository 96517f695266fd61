#pragma once
// Why an op starts when it does, in one sentence a student can read (the Teach dock's replay):
// of the ops it depends on (OpRelations.h: the previous stage's forward through the receive that
// brought it, the next stage's backward, its own forward, ...), the one whose output was there
// last, when it arrived, and whether the rank itself was still busy then, e.g.
//   "F3 on rank 2 waits for rank 1's F3: the activation arrives at 1.200 ms"
//   "B0 on rank 3 waits for its own F0, done at 700.000 µs"
//   "F4 on rank 0 needs no other rank (the first stage reads the input): it starts when B0 ends
//    at 1.100 ms".
// Times are from the run's start. One op at a time (it scans the lanes involved).

#include <cstdint>
#include <string>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::trace {

struct OpWait {
  OpRef producer;            // the input whose output came last; invalid when none
  std::int64_t readyAt = 0;  // when it was there: the receive's end, or the producer's end
  bool transferred = false;  // it came through a recorded receive
  OpRef previous;            // the op before it on its rank's compute lane; invalid when none
  std::string sentence;
};

OpWait explainOpWait(const RunTrace& run, const OpRef& op);

// "F3" (kind and micro-batch); "F3 (stage 5)" in a run of more stages than ranks; the kind alone
// for an op without a micro-batch.
std::string opTeachLabel(const RunTrace& run, const OpRef& op);

}  // namespace ps::trace
