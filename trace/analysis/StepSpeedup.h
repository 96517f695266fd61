#pragma once
// One row of the sensitivity table ("which op kind × stage, made faster, shortens the step
// most"): filled by the runtime's re-simulation (runtime/run/Sensitivity.h), printed by report.

#include <cstdint>

#include "trace/OpKind.h"

namespace ps::trace {

struct StepSpeedup {
  OpKind kind = OpKind::F;
  int stage = 0;
  int rank = 0;              // a rank that runs the stage
  std::int64_t stepNs = 0;   // the re-simulated step time
  std::int64_t savedNs = 0;  // against the plan's own simulated step time
};

}  // namespace ps::trace
