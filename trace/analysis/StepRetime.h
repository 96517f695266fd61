#pragma once
// One step of a recorded run re-timed as soon as possible: every op's duration and every
// input's latency (the input's end less its producer's, a transfer's flight and queue) as
// recorded, each rank running its ops in a given order. What a reordered program would take
// (the order doctor's gain), on simulated, recorded and imported runs alike. An optimizer step
// waits for the step's gradients (every rank's, or its own without a barrier) plus the delay
// recorded after them (its all-reduce); two ops recorded starting together (an overlapped unit)
// start together. Each rank starts the step when the step starts or its previous step ended.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "trace/analysis/StepGraph.h"

namespace ps::trace {

struct RankOrder {
  int rank = 0;
  std::vector<std::size_t> ops;  // the rank's compute indices of the step, in the order to run
};

// The step's span (latest end less the step's start) with every rank in its recorded order but
// `reordered`'s; nullopt when that order runs an op before one it depends on.
std::optional<std::int64_t> retimedStepSpan(const StepGraph& graph, std::size_t k,
                                            const RankOrder* reordered = nullptr);

}  // namespace ps::trace
