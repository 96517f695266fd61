#pragma once
// How a rank timestamps its ops. The cpu backend reads the host's steady clock at once
// (HostOpClock). The cuda backend records an event on the rank's stream instead and turns the
// events into nanoseconds after the step (never a synchronize per op): its stamps are tokens
// until resolve() rewrites them. RankWorker only ever stores stamps and resolves a step's records
// before handing them over, so it runs unchanged on either.

#include <chrono>
#include <cstdint>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

class OpClock {
 public:
  virtual ~OpClock() = default;
  // A stamp for "now" in the rank's order of work.
  virtual std::int64_t mark() = 0;
  // Rewrites every stamp in `batch` (op start/end, memory t_ns) into ns on the run's time axis.
  [[nodiscard]] virtual Status resolve(trace::TraceBatch& batch) = 0;
  // resolve(), but waiting at most `within` for the stamps' work to finish (a run that ends).
  [[nodiscard]] virtual Status resolveWithin(trace::TraceBatch& batch,
                                             std::chrono::milliseconds within) {
    (void)within;
    return resolve(batch);
  }
  // Brackets the host-side issue of one op (kind: the op itself, e.g. RECV_F inside an F action)
  // for external profilers: the cuda clock opens an NVTX range named PP:{stage}{KIND}{mb}.
  virtual void beginRange(OpKind kind, const Action& action) {
    (void)kind;
    (void)action;
  }
  virtual void endRange() {}
};

}  // namespace ps::runtime
