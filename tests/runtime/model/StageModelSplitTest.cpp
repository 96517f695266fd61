// A model cut into contiguous stages, run the way a pipeline would (F through the stages in turn,
// I back through them, W now or later), computes exactly what the whole model computes: the same
// gradients, losses and, after optimizer steps, weights as referenceTrain.
#include <gtest/gtest.h>

#include "runtime/model/ReferenceTrainer.h"
#include "runtime/model/StageModel.h"

namespace ps::runtime {
namespace {

constexpr int kMicrobatches = 3;

ModelConfig splitConfig(BlockType block) {
  ModelConfig c;
  c.block = block;
  c.layers = 4;
  c.hidden = 8;
  c.seq = 4;
  c.microbatchSize = 2;
  c.heads = 2;
  c.seed = 5;
  return c;
}

using Stages = std::vector<std::unique_ptr<StageModel>>;

Stages makeStages(const ModelConfig& config, const std::vector<std::pair<int, int>>& ranges,
                  const OptimizerConfig& optimizer) {
  Stages stages;
  for (auto [first, last] : ranges) {
    StageOptions o;
    o.firstLayer = first;
    o.lastLayer = last;
    o.microbatchesPerStep = kMicrobatches;
    o.optimizer = optimizer;
    auto stage = StageModel::create(config, o);
    EXPECT_TRUE(stage.ok()) << stage.error();
    stages.push_back(std::move(stage).value());
  }
  return stages;
}

// One training step by hand: F of every micro-batch through all stages, then I back through
// them; W right after each I, or (zero-bubble style) all W at the end of the step.
void runStep(Stages& stages, int step, bool deferW) {
  const std::size_t p = stages.size();
  std::vector<std::vector<Tensor>> acts(p), grads(p);
  for (std::size_t s = 0; s < p; ++s) {
    for (int mb = 0; mb < kMicrobatches; ++mb) {
      acts[s].push_back(stages[s]->newBoundaryTensor());
      grads[s].push_back(stages[s]->newBoundaryTensor());
    }
  }
  for (int mb = 0; mb < kMicrobatches; ++mb) {
    for (std::size_t s = 0; s < p; ++s) {
      const float* in = s == 0 ? nullptr : acts[s - 1][mb].data();
      float* out = s + 1 == p ? nullptr : acts[s][mb].data();
      ASSERT_TRUE(stages[s]->forward({step, mb}, in, out).ok());
    }
  }
  for (int mb = 0; mb < kMicrobatches; ++mb) {
    for (std::size_t s = p; s-- > 0;) {
      const float* dOut = s + 1 == p ? nullptr : grads[s + 1][mb].data();
      float* dIn = s == 0 ? nullptr : grads[s][mb].data();
      ASSERT_TRUE(stages[s]->backwardInput({step, mb}, dOut, dIn).ok());
      if (!deferW) {
        ASSERT_TRUE(stages[s]->backwardWeight({step, mb}).ok());
      }
    }
  }
  for (int mb = 0; deferW && mb < kMicrobatches; ++mb) {
    for (auto& stage : stages)
      ASSERT_TRUE(stage->backwardWeight({step, mb}).ok());
  }
}

std::vector<float> concat(const Stages& stages, bool gradients) {
  std::vector<float> all;
  for (const auto& s : stages) {
    const auto part = gradients ? s->gradients() : s->parameters();
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

struct SplitCase {
  BlockType block;
  std::vector<std::pair<int, int>> ranges;
  bool deferW;
};

class StageSplitTest : public ::testing::TestWithParam<SplitCase> {};

TEST_P(StageSplitTest, GradientsEqualTheWholeModelBitwise) {
  const auto& c = GetParam();
  const ModelConfig config = splitConfig(c.block);
  Stages whole = makeStages(config, {{0, 3}}, {});
  Stages split = makeStages(config, c.ranges, {});
  EXPECT_EQ(concat(whole, false), concat(split, false)) << "initial weights differ";
  runStep(whole, 0, false);
  runStep(split, 0, c.deferW);
  EXPECT_EQ(concat(whole, true), concat(split, true));
  EXPECT_EQ(whole.front()->stepLoss(0), split.back()->stepLoss(0));
}

TEST_P(StageSplitTest, TrainingMatchesReferenceTrain) {
  const auto& c = GetParam();
  const ModelConfig config = splitConfig(c.block);
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  adam.lr = 0.01f;
  constexpr int kSteps = 3;
  Stages split = makeStages(config, c.ranges, adam);
  std::vector<double> losses;
  for (int step = 0; step < kSteps; ++step) {
    runStep(split, step, c.deferW);
    losses.push_back(split.back()->stepLoss(step).value_or(-1));
    for (auto& stage : split)
      stage->optimizerStep();
  }
  const auto reference = referenceTrain(config, kMicrobatches, kSteps, adam);
  ASSERT_TRUE(reference.ok()) << reference.error();
  EXPECT_EQ(losses, reference->losses);
  EXPECT_EQ(concat(split, false), reference->params);
}

INSTANTIATE_TEST_SUITE_P(
    Splits, StageSplitTest,
    ::testing::Values(SplitCase{BlockType::Mlp, {{0, 1}, {2, 3}}, false},
                      SplitCase{BlockType::Mlp, {{0, 0}, {1, 2}, {3, 3}}, true},
                      SplitCase{BlockType::Transformer, {{0, 1}, {2, 3}}, true},
                      SplitCase{BlockType::Transformer, {{0, 0}, {1, 2}, {3, 3}}, false}),
    [](const auto& p) {
      return std::string(blockTypeName(p.param.block)) + "_" +
             std::to_string(p.param.ranges.size()) + "stages_" +
             (p.param.deferW ? "deferredW" : "immediateW");
    });

}  // namespace
}  // namespace ps::runtime
