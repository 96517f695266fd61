// StageModel beyond the arithmetic: weight versions, memory accounting, recompute, and the
// errors that catch an executor running passes out of order.
#include "runtime/model/StageModel.h"

#include <gtest/gtest.h>

namespace ps::runtime {
namespace {

ModelConfig stageConfig(BlockType block = BlockType::Transformer) {
  ModelConfig c;
  c.block = block;
  c.layers = 3;
  c.hidden = 8;
  c.seq = 4;
  c.microbatchSize = 2;
  c.heads = 2;
  c.seed = 3;
  return c;
}

std::unique_ptr<StageModel> makeStage(const ModelConfig& config, int first, int last,
                                      OptimizerKind kind = OptimizerKind::Sgd,
                                      std::shared_ptr<MemoryCounter> memory = nullptr) {
  StageOptions o;
  o.firstLayer = first;
  o.lastLayer = last;
  o.optimizer.kind = kind;
  o.memory = std::move(memory);
  auto stage = StageModel::create(config, o);
  EXPECT_TRUE(stage.ok()) << stage.error();
  return std::move(stage).value();
}

// F then B of one micro-batch on a single-stage (whole) model.
void trainMicrobatch(StageModel& m, MicrobatchKey key,
                     std::shared_ptr<const ParamVersion> version = nullptr) {
  ASSERT_TRUE(m.forward(key, nullptr, nullptr, std::move(version)).ok());
  ASSERT_TRUE(m.backward(key, nullptr, nullptr).ok());
}

std::vector<float> gradientsOf(const StageModel& m) {
  return {m.gradients().begin(), m.gradients().end()};
}

TEST(StageModelVersions, BackwardUsesTheVersionItsForwardUsed) {
  const ModelConfig config = stageConfig();
  auto live = makeStage(config, 0, 2, OptimizerKind::Adam);
  const auto v0 = live->snapshot();
  EXPECT_EQ(v0->version(), 0);
  trainMicrobatch(*live, {0, 0});
  live->optimizerStep();
  EXPECT_EQ(live->version(), 1);

  // F with the stashed initial weights; the live weights move on before the backward runs.
  ASSERT_TRUE(live->forward({1, 0}, nullptr, nullptr, v0).ok());
  EXPECT_EQ(live->versionUsed({1, 0}), 0);
  live->optimizerStep();
  ASSERT_TRUE(live->backward({1, 0}, nullptr, nullptr).ok());
  EXPECT_EQ(live->versionUsed({1, 0}), std::nullopt);

  auto fresh = makeStage(config, 0, 2);  // still at the initial weights
  trainMicrobatch(*fresh, {1, 0});
  EXPECT_EQ(gradientsOf(*live), gradientsOf(*fresh));
  EXPECT_NE(std::vector<float>(live->parameters().begin(), live->parameters().end()),
            std::vector<float>(fresh->parameters().begin(), fresh->parameters().end()));

  ASSERT_TRUE(live->forward({2, 0}, nullptr, nullptr).ok());
  EXPECT_EQ(live->versionUsed({2, 0}), -1);  // live weights
}

TEST(StageModelVersions, RejectsAVersionOfAnotherStage) {
  const ModelConfig config = stageConfig();
  auto a = makeStage(config, 0, 0);
  auto b = makeStage(config, 0, 1);
  auto out = a->newBoundaryTensor();
  const auto status = a->forward({0, 0}, nullptr, out.data(), b->snapshot());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().find("another stage"), std::string::npos) << status.error();
}

class StageMemoryTest : public ::testing::TestWithParam<BlockType> {};

TEST_P(StageMemoryTest, CounterFollowsWeightsStashesAndScratch) {
  const ModelConfig config = stageConfig(GetParam());
  auto memory = std::make_shared<MemoryCounter>();
  std::vector<std::int64_t> seen;
  memory->setListener([&](std::int64_t bytes) { seen.push_back(bytes); });
  auto first = makeStage(config, 0, 0, OptimizerKind::Adam, memory);
  auto last = makeStage(config, 1, 2, OptimizerKind::Adam, memory);
  // Weights, gradients and Adam's two moments.
  EXPECT_EQ(memory->bytesInUse(), 4 * (first->paramBytes() + last->paramBytes()));
  auto act = first->newBoundaryTensor();
  auto grad = first->newBoundaryTensor();
  const std::int64_t base = memory->bytesInUse();

  ASSERT_TRUE(first->forward({0, 0}, nullptr, act.data()).ok());
  EXPECT_EQ(memory->bytesInUse() - base, first->activationBytesPerMicrobatch());
  ASSERT_TRUE(last->forward({0, 0}, act.data(), nullptr).ok());
  const std::int64_t afterF =
      first->activationBytesPerMicrobatch() + last->activationBytesPerMicrobatch();
  EXPECT_EQ(memory->bytesInUse() - base, afterF);
  EXPECT_GT(memory->peakBytes(), base + afterF);  // transient buffers came and went

  ASSERT_TRUE(last->backwardInput({0, 0}, nullptr, grad.data()).ok());
  ASSERT_TRUE(first->backwardInput({0, 0}, grad.data(), nullptr).ok());
  EXPECT_EQ(memory->bytesInUse() - base,
            first->backwardStashBytesPerMicrobatch() + last->backwardStashBytesPerMicrobatch());
  ASSERT_TRUE(first->backwardWeight({0, 0}).ok());
  ASSERT_TRUE(last->backwardWeight({0, 0}).ok());
  EXPECT_EQ(memory->bytesInUse(), base);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), base);

  const auto version = last->snapshot();
  EXPECT_EQ(memory->bytesInUse(), base + last->paramBytes());
}

INSTANTIATE_TEST_SUITE_P(Blocks, StageMemoryTest,
                         ::testing::Values(BlockType::Mlp, BlockType::Transformer),
                         [](const auto& p) { return std::string(blockTypeName(p.param)); });

TEST(StageModelRecompute, DroppedActivationsAreRebuiltExactly) {
  const ModelConfig config = stageConfig();
  auto plain = makeStage(config, 0, 2);
  trainMicrobatch(*plain, {0, 1});

  auto memory = std::make_shared<MemoryCounter>();
  auto recomputed = makeStage(config, 0, 2, OptimizerKind::Sgd, memory);
  const std::int64_t base = memory->bytesInUse();
  ASSERT_TRUE(recomputed->forward({0, 1}, nullptr, nullptr).ok());
  ASSERT_TRUE(recomputed->dropActivations({0, 1}).ok());
  // Kept: the stage input and, on the last stage, the loss gradient.
  EXPECT_EQ(memory->bytesInUse() - base, 2 * recomputed->boundaryBytes());
  const auto early = recomputed->backwardInput({0, 1}, nullptr, nullptr);
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.error().find("recompute first"), std::string::npos) << early.error();
  ASSERT_TRUE(recomputed->recompute({0, 1}).ok());
  EXPECT_EQ(memory->bytesInUse() - base, recomputed->activationBytesPerMicrobatch());
  ASSERT_TRUE(recomputed->backward({0, 1}, nullptr, nullptr).ok());
  EXPECT_EQ(gradientsOf(*plain), gradientsOf(*recomputed));
}

TEST(StageModelErrors, PassesOutOfOrderAreRejectedWithTheMicrobatchNamed) {
  const ModelConfig config = stageConfig(BlockType::Mlp);
  auto middle = makeStage(config, 1, 1);
  auto in = middle->newBoundaryTensor();
  auto out = middle->newBoundaryTensor();
  const auto noF = middle->backwardInput({2, 5}, out.data(), in.data());
  ASSERT_FALSE(noF.ok());
  EXPECT_NE(noF.error().find("micro-batch 5 (step 2)"), std::string::npos) << noF.error();
  EXPECT_FALSE(middle->forward({0, 0}, nullptr, out.data()).ok());  // a middle stage needs input
  ASSERT_TRUE(middle->forward({0, 0}, in.data(), out.data()).ok());
  EXPECT_FALSE(middle->forward({0, 0}, in.data(), out.data()).ok());     // twice
  EXPECT_FALSE(middle->backwardWeight({0, 0}).ok());                     // W before I
  EXPECT_FALSE(middle->backwardInput({0, 0}, nullptr, in.data()).ok());  // no dOut
  ASSERT_TRUE(middle->backwardInput({0, 0}, out.data(), in.data()).ok());
  EXPECT_FALSE(middle->backwardInput({0, 0}, out.data(), in.data()).ok());  // twice
  ASSERT_TRUE(middle->backwardWeight({0, 0}).ok());
  EXPECT_EQ(middle->inFlight(), 0);

  auto last = makeStage(config, 2, 2);
  ASSERT_TRUE(last->forward({0, 0}, in.data(), nullptr).ok());
  EXPECT_FALSE(last->backwardInput({0, 0}, out.data(), in.data()).ok());  // the loss gives dOut
}

TEST(StageModelErrors, BadConfigurationsAreErrors) {
  ModelConfig config = stageConfig();
  StageOptions o;
  o.firstLayer = 2;
  o.lastLayer = 1;
  EXPECT_FALSE(StageModel::create(config, o).ok());
  o.firstLayer = 0;
  o.lastLayer = 3;
  const auto outside = StageModel::create(config, o);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.error().find("3 layers"), std::string::npos) << outside.error();
  o.lastLayer = -1;
  o.optimizer.lr = 0;
  EXPECT_FALSE(StageModel::create(config, o).ok());
  o.optimizer.lr = 0.1f;
  config.heads = 3;  // does not divide 8
  EXPECT_FALSE(StageModel::create(config, o).ok());
  EXPECT_FALSE(parseBlockType("cnn").ok());
  EXPECT_EQ(parseBlockType("transformer").value(), BlockType::Transformer);
}

}  // namespace
}  // namespace ps::runtime
