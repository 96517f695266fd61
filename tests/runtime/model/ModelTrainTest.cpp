// Training the whole model: the loss falls with SGD and Adam for both block types, and a run is a
// pure function of its seed (data, initial weights, losses, final weights).
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "runtime/model/ReferenceTrainer.h"
#include "runtime/model/SyntheticData.h"

namespace ps::runtime {
namespace {

ModelConfig trainConfig(BlockType block) {
  ModelConfig c;
  c.block = block;
  c.layers = 3;
  c.hidden = 16;
  c.seq = 8;
  c.microbatchSize = 2;
  c.heads = 2;
  c.seed = 11;
  return c;
}

OptimizerConfig optimizer(OptimizerKind kind) {
  OptimizerConfig o;
  o.kind = kind;
  o.lr = kind == OptimizerKind::Sgd ? 0.1f : 0.01f;
  return o;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t count) {
  return std::accumulate(v.begin() + from, v.begin() + from + count, 0.0) / count;
}

struct TrainCase {
  BlockType block;
  OptimizerKind optimizer;
};

class LossDecreaseTest : public ::testing::TestWithParam<TrainCase> {};

TEST_P(LossDecreaseTest, LossFallsOverTwentySteps) {
  const auto [block, kind] = GetParam();
  const auto run = referenceTrain(trainConfig(block), 2, 20, optimizer(kind));
  ASSERT_TRUE(run.ok()) << run.error();
  // Every step sees fresh data, so compare averages of the first and last five steps.
  const double first = mean(run->losses, 0, 5);
  const double last = mean(run->losses, 15, 5);
  EXPECT_LT(last, 0.7 * first) << "first five steps " << first << ", last five " << last;
}

INSTANTIATE_TEST_SUITE_P(Models, LossDecreaseTest,
                         ::testing::Values(TrainCase{BlockType::Mlp, OptimizerKind::Sgd},
                                           TrainCase{BlockType::Mlp, OptimizerKind::Adam},
                                           TrainCase{BlockType::Transformer, OptimizerKind::Sgd},
                                           TrainCase{BlockType::Transformer, OptimizerKind::Adam}),
                         [](const auto& p) {
                           return std::string(blockTypeName(p.param.block)) + "_" +
                                  std::string(optimizerName(p.param.optimizer));
                         });

TEST(ModelDeterminism, SameSeedGivesBitwiseTheSameRun) {
  const ModelConfig config = trainConfig(BlockType::Transformer);
  const auto a = referenceTrain(config, 2, 3, optimizer(OptimizerKind::Adam));
  const auto b = referenceTrain(config, 2, 3, optimizer(OptimizerKind::Adam));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->losses, b->losses);
  EXPECT_EQ(a->params, b->params);

  ModelConfig other = config;
  other.seed = 12;
  const auto c = referenceTrain(other, 2, 3, optimizer(OptimizerKind::Adam));
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->losses, c->losses);
  EXPECT_NE(a->params, c->params);
}

TEST(ModelDeterminism, SyntheticDataDependsOnlyOnSeedStepAndMicrobatch) {
  const ModelConfig config = trainConfig(BlockType::Transformer);
  const auto n = static_cast<std::size_t>(config.activationElems());
  const auto inputOf = [&](const ModelConfig& c, MicrobatchKey key) {
    std::vector<float> v(n);
    SyntheticData(c).input(key, v.data());
    return v;
  };
  EXPECT_EQ(inputOf(config, {3, 1}), inputOf(config, {3, 1}));
  EXPECT_NE(inputOf(config, {3, 1}), inputOf(config, {3, 2}));
  EXPECT_NE(inputOf(config, {3, 1}), inputOf(config, {4, 1}));
  EXPECT_NE(inputOf(config, {0, 1}), inputOf(config, {1, 0}));
  ModelConfig other = config;
  other.seed = 12;
  EXPECT_NE(inputOf(config, {3, 1}), inputOf(other, {3, 1}));

  // Inputs are standard normal.
  const auto x = inputOf(config, {0, 0});
  double sum = 0, sq = 0;
  for (float v : x) {
    sum += v;
    sq += v * v;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.15);
  EXPECT_NEAR(sq / n, 1.0, 0.2);
}

TEST(ModelDeterminism, TransformerTargetsDependOnThePreviousToken) {
  ModelConfig config = trainConfig(BlockType::Transformer);
  config.hidden = 4;
  config.seq = 3;
  config.microbatchSize = 2;
  const auto n = static_cast<std::size_t>(config.activationElems());
  std::vector<float> x(n), t(n);
  SyntheticData data(config);
  data.input({0, 0}, x.data());
  data.target({0, 0}, t.data());
  for (int r = 0; r < config.rows(); ++r) {
    for (int j = 0; j < 4; ++j) {
      float expected = std::sin(x[r * 4 + (j + 1) % 4]);
      if (r % config.seq != 0) expected += 0.5f * x[(r - 1) * 4 + j];
      EXPECT_FLOAT_EQ(t[r * 4 + j], expected) << "row " << r << " column " << j;
    }
  }
}

}  // namespace
}  // namespace ps::runtime
