#include "runtime/model/ReferenceTrainer.h"

#include <string>

#include "runtime/model/EmbeddingTable.h"
#include "runtime/model/StageModel.h"
#include "runtime/model/SyntheticData.h"

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
  // NestPipe's embedding table, whole: the first layer's input is its rows for the tokens.
  std::unique_ptr<EmbeddingTable> table;
  if (config.embeddingRows > 0) {
    auto made = EmbeddingTable::create(config, 1, 0, optimizer, model.memory());
    if (!made) return std::move(made).takeError();
    table = std::move(*made);
  }
  const SyntheticData data(config);
  std::vector<int> ids(static_cast<std::size_t>(config.rows()));
  std::vector<float> dInput(static_cast<std::size_t>(config.activationElems()));

  ReferenceRun run;
  for (int step = 0; step < steps; ++step) {
    if (config.historyRefresh > 0 && step % config.historyRefresh == 0)
      PS_TRY(model.refreshHistory(step, nullptr, nullptr));
    for (int mb = 0; mb < microbatches; ++mb) {
      const MicrobatchKey key{step, mb};
      if (!table) {
        PS_TRY(model.forward(key, nullptr, nullptr));
        PS_TRY(model.backward(key, nullptr, nullptr));
        continue;
      }
      data.tokenIds(key, ids.data());
      const std::vector<float> input = table->gather(ids);
      PS_TRY(model.forward(key, input.data(), nullptr));
      PS_TRY(model.backward(key, nullptr, dInput.data()));
      table->addGradients(ids, dInput.data());
    }
    run.losses.push_back(model.stepLoss(step).value_or(0.0));
    model.optimizerStep();
    if (table) table->step();
  }
  run.params = model.copyParameters();
  return run;
}

}  // namespace ps::runtime
