// Whole-block finite-difference checks for the block types: the input gradient from I and the
// weight gradients from W (run after I, as a zero-bubble schedule would), through the Layer API.
#include <gtest/gtest.h>

#include "runtime/model/Layer.h"
#include "runtime/model/Rng.h"
#include "tests/kernels/GradCheck.h"
#include "tests/runtime/model/LayerGradCheck.h"

namespace ps::runtime {
namespace {

// A whole block stacks GELU curvature (truncation error ∝ eps²) on attention's rounding noise
// (∝ 1/eps); 1e-2 balances the two (measured worst errors ≤ 8e-4 with the scaled floor).
constexpr float kEps = 1e-2f;

ModelConfig smallConfig(BlockType block) {
  ModelConfig c;
  c.block = block;
  c.layers = 2;
  c.hidden = 8;
  c.seq = 4;
  c.microbatchSize = 2;
  c.heads = 2;
  c.ffnMultiplier = 2;
  c.seed = 7;
  // Mixture of experts: every token to all 3 experts, none dropped, so that the loss is smooth
  // in the weights (a top-k or capacity decision flipped by the finite difference is a jump).
  c.experts = 3;
  c.topK = 3;
  c.capacityFactor = 1;
  return c;
}

struct BlockCase {
  explicit BlockCase(const ModelConfig& config)
      : layer(makeLayer(config)),
        n(static_cast<std::size_t>(config.activationElems())),
        x(test::randomVector(n, 71)),
        dOut(test::randomVector(n, 72)),
        params(layer->paramCount()) {
    layer->initParams(params.data(), 99);
    // Perturb the initial weights so biases, norm shifts and gains are not trivially 0 or 1.
    Rng rng(5);
    for (float& p : params)
      p += 0.1f * rng.normal();
  }
  double loss() {
    ActivationStash stash(nullptr);
    std::vector<float> out(n);
    layer->forward(params.data(), x.data(), out.data(), stash);
    return test::weightedSum(dOut, out.data());
  }
  // I then W for dOut; returns dIn and fills grads.
  std::vector<float> backward(std::vector<float>& grads) {
    ActivationStash stash(nullptr);
    std::vector<float> out(n), dIn(n);
    layer->forward(params.data(), x.data(), out.data(), stash);
    layer->backwardInput(params.data(), dOut.data(), stash, dIn.data());
    grads.assign(params.size(), 0.0f);
    layer->backwardWeight(stash, grads.data());
    EXPECT_EQ(stash.bytes(), 0) << "W must free the whole stash";
    return dIn;
  }

  std::unique_ptr<Layer> layer;
  std::size_t n;
  std::vector<float> x, dOut, params;
};

class BlockGradTest : public ::testing::TestWithParam<BlockType> {};

TEST_P(BlockGradTest, InputGradientMatchesFiniteDifferences) {
  BlockCase c(smallConfig(GetParam()));
  std::vector<float> grads;
  const auto dIn = c.backward(grads);
  const auto r = test::checkGradient(
      c.x, dIn, [&] { return c.loss(); }, kEps, test::scaleFloor(dIn));
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

TEST_P(BlockGradTest, WeightGradientsMatchFiniteDifferences) {
  BlockCase c(smallConfig(GetParam()));
  std::vector<float> grads;
  c.backward(grads);
  // Checked per parameter tensor so that a failure names it.
  test::expectWeightGradients(
      c.params, grads, c.layer->layout(), [&] { return c.loss(); }, kEps);
}

INSTANTIATE_TEST_SUITE_P(Blocks, BlockGradTest,
                         ::testing::Values(BlockType::Mlp, BlockType::Transformer, BlockType::Moe),
                         [](const auto& p) { return std::string(blockTypeName(p.param)); });

}  // namespace
}  // namespace ps::runtime
