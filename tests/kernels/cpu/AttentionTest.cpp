// Causal multi-head self-attention: causality, and the I and W parts against finite differences.
#include "kernels/cpu/Attention.h"

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

// Attention outputs sum many rounded products, so fp32 noise in the finite differences is larger
// than for the other kernels; a wider step keeps it near 1e-3 while the truncation error
// (∝ eps²) stays smaller still (measured: wqkv error 6e-3 at eps 1e-2, 1.4e-3 at 2e-2).
constexpr float kEps = 3e-2f;

struct AttentionCase {
  AttentionShape s{2, 3, 4, 2};  // batch, seq, hidden, heads
  long n = s.rows() * s.hidden;
  std::vector<float> x = test::randomVector(n, 41);
  std::vector<float> wqkv = test::randomVector(3 * 4 * 4, 42, 0.6f);
  std::vector<float> bqkv = test::randomVector(3 * 4, 43, 0.2f);
  std::vector<float> wo = test::randomVector(4 * 4, 44, 0.6f);
  std::vector<float> bo = test::randomVector(4, 45, 0.2f);
  std::vector<float> dOut = test::randomVector(n, 46);
  std::vector<float> qkv = std::vector<float>(s.qkvElems());
  std::vector<float> probs = std::vector<float>(s.probsElems());
  std::vector<float> ctx = std::vector<float>(s.ctxElems());

  AttentionWeights weights() const { return {wqkv.data(), bqkv.data(), wo.data(), bo.data()}; }
  AttentionSaved saved() { return {qkv.data(), probs.data(), ctx.data()}; }
  std::vector<float> forward() {
    std::vector<float> out(n);
    attentionForward(s, x.data(), weights(), saved(), out.data());
    return out;
  }
  double loss() { return test::weightedSum(dOut, forward().data()); }
};

TEST(AttentionKernel, EarlierTokensIgnoreLaterOnes) {
  AttentionCase c;
  const auto before = c.forward();
  // Change the last token of the first sequence: only that token's output may change.
  for (int h = 0; h < c.s.hidden; ++h)
    c.x[(c.s.seq - 1) * c.s.hidden + h] += 1.0f;
  const auto after = c.forward();
  for (int t = 0; t < c.s.seq - 1; ++t)
    for (int h = 0; h < c.s.hidden; ++h)
      EXPECT_EQ(before[t * c.s.hidden + h], after[t * c.s.hidden + h]) << "token " << t;
  EXPECT_NE(before[(c.s.seq - 1) * c.s.hidden], after[(c.s.seq - 1) * c.s.hidden]);
}

TEST(AttentionKernel, InputGradientMatchesFiniteDifferences) {
  AttentionCase c;
  c.forward();
  std::vector<float> dqkv(c.s.qkvElems()), dx(c.n), scratch(c.s.backwardScratchElems());
  attentionBackwardInput(c.s, c.weights(), c.saved(), c.dOut.data(), dqkv.data(), dx.data(),
                         scratch.data());
  const auto r = test::checkGradient(
      c.x, dx, [&] { return c.loss(); }, kEps);
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

TEST(AttentionKernel, WeightGradientsMatchFiniteDifferences) {
  AttentionCase c;
  c.forward();
  std::vector<float> dqkv(c.s.qkvElems()), dx(c.n), scratch(c.s.backwardScratchElems());
  attentionBackwardInput(c.s, c.weights(), c.saved(), c.dOut.data(), dqkv.data(), dx.data(),
                         scratch.data());
  std::vector<float> gwqkv(c.wqkv.size(), 0.0f), gbqkv(c.bqkv.size(), 0.0f);
  std::vector<float> gwo(c.wo.size(), 0.0f), gbo(c.bo.size(), 0.0f);
  attentionBackwardWeight(c.s, c.x.data(), c.ctx.data(), c.dOut.data(), dqkv.data(),
                          {gwqkv.data(), gbqkv.data(), gwo.data(), gbo.data()});
  const auto loss = [&] { return c.loss(); };
  for (auto [param, grad, name] :
       {std::tuple{&c.wqkv, &gwqkv, "wqkv"}, std::tuple{&c.bqkv, &gbqkv, "bqkv"},
        std::tuple{&c.wo, &gwo, "wo"}, std::tuple{&c.bo, &gbo, "bo"}}) {
    const auto r = test::checkGradient(*param, *grad, loss, kEps);
    EXPECT_LT(r.maxError, test::kGradTolerance) << name << ": " << test::describe(r);
  }
}

}  // namespace
}  // namespace ps::kernels
