#pragma once
// One row of the sensitivity table ("which op kind × stage, made faster, shortens the step
// most"): filled by the runtime's re-simulation (runtime/run/Sensitivity.h), printed by report.

#include <cstdint>
#include <optional>

#include "trace/OpKind.h"

namespace ps::trace {

struct StepSpeedup {
  OpKind kind = OpKind::F;
  int stage = 0;
  int rank = 0;              // a rank that runs the stage
  std::int64_t stepNs = 0;   // the re-simulated step time
  std::int64_t savedNs = 0;  // against the plan's own simulated step time
  // The least slack of the (stage, kind)'s ops in the recorded run (OpSlack.h), when known: why a
  // speed-up saves nothing (none of its ops is on the critical path).
  std::optional<std::int64_t> leastSlackNs;
};

}  // namespace ps::trace
