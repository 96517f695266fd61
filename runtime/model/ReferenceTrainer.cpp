#include "runtime/model/ReferenceTrainer.h"

#include <string>

#include "runtime/model/StageModel.h"

namespace ps::runtime {

Result<ReferenceRun> referenceTrain(const ModelConfig& config, int microbatches, int steps,
                                    const OptimizerConfig& optimizer) {
  if (microbatches < 1 || steps < 1) {
    return Error{"reference training needs at least one micro-batch and one step, got " +
                 std::to_string(microbatches) + " and " + std::to_string(steps)};
  }
  StageOptions options;
  options.microbatchesPerStep = microbatches;
  options.optimizer = optimizer;
  auto created = StageModel::create(config, options);
  if (!created) return std::move(created).takeError();
  StageModel& model = **created;

  ReferenceRun run;
  for (int step = 0; step < steps; ++step) {
    for (int mb = 0; mb < microbatches; ++mb) {
      const MicrobatchKey key{step, mb};
      PS_TRY(model.forward(key, nullptr, nullptr));
      PS_TRY(model.backward(key, nullptr, nullptr));
    }
    run.losses.push_back(model.stepLoss(step).value_or(0.0));
    model.optimizerStep();
  }
  run.params = model.copyParameters();
  return run;
}

}  // namespace ps::runtime
