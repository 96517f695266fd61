#pragma once
// Closed-form synthetic traces: the GPipe schedule with uniform costs and free links, whose
// bubble is exactly (p-1)/(m+p-1). Used by the demo, the tests and the benchmarks, which need
// traces whose every number is known without running a simulator.

#include <cstdint>
#include <vector>

#include "trace/TraceRecords.h"
#include "trace/store/TraceWriter.h"

namespace ps::trace {

struct SyntheticGpipe {
  int ranks = 4;
  int microbatches = 8;
  int steps = 1;
  std::int64_t fwd_ns = 1000;  // t; backward takes 2t
  std::int64_t act_bytes = 1 << 20;
  std::int64_t param_bytes = 64 << 20;
  bool with_sends = true;  // zero-duration SEND_F/RECV_F and SEND_B/RECV_B at op boundaries
};

// Header (run row, ranks, stages) for the synthetic run.
RunHeader syntheticGpipeHeader(const SyntheticGpipe& g);
// All ops, memory samples and a per-step loss metric of step `step`.
TraceBatch syntheticGpipeStep(const SyntheticGpipe& g, int step);
// Span of one step: 3t(m+p-1).
inline std::int64_t syntheticGpipeSpan(const SyntheticGpipe& g) {
  return 3 * g.fwd_ns * (g.microbatches + g.ranks - 1);
}

}  // namespace ps::trace
