#pragma once
// The unpipelined baseline every pipelined run is compared with: the whole model as one stage,
// trained on the same synthetic data. Per step: for micro-batches 0..M−1 in order F, I, W
// (gradients accumulate; the loss gradient is scaled by 1/M so they average), then one optimizer
// step. Pipelined synchronous schedules must reproduce its losses and final weights.

#include <vector>

#include "runtime/model/ModelConfig.h"
#include "runtime/model/Optimizer.h"
#include "trace/Result.h"

namespace ps::runtime {

struct ReferenceRun {
  std::vector<double> losses;  // per step: mean over its micro-batches, before the step's update
  std::vector<float> params;   // final weights of layers 0..L−1, concatenated in layer order
};

// Errors: invalid configs, microbatches or steps below 1.
[[nodiscard]] Result<ReferenceRun> referenceTrain(const ModelConfig& config, int microbatches,
                                                  int steps, const OptimizerConfig& optimizer);

}  // namespace ps::runtime
