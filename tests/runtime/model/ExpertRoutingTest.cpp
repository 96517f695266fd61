// The mixture-of-experts router (ExpertRouting.h): each token's top-k by probability, every first
// choice placed before any second, tokens in row order, an expert full at its capacity.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/model/ExpertRouting.h"

namespace ps::runtime {
namespace {

TEST(ExpertRouting, FirstChoicesFillTheExpertsBeforeSecondChoicesAndOverflowIsDropped) {
  // 4 tokens over 3 experts; tokens 0, 1, 2 prefer expert 0, token 3 expert 2.
  const std::vector<float> probs = {0.6f, 0.3f, 0.1f,  //
                                    0.5f, 0.1f, 0.4f,  //
                                    0.7f, 0.2f, 0.1f,  //
                                    0.1f, 0.3f, 0.6f};
  const ExpertRoutes r = routeTokens(probs.data(), 4, 3, 2, 2);
  EXPECT_EQ(r.chosen[1], (std::vector<int>{0, 2}));
  // Expert 0 takes the first two tokens choosing it first; token 2's first choice is dropped.
  EXPECT_EQ(r.tokens[0], (std::vector<int>{0, 1}));
  EXPECT_FALSE(r.kept[2][0]);
  // Second choices: token 0 -> 1, token 1 -> 2 (behind token 3's first choice), token 2 -> 1,
  // token 3 -> 1 (full).
  EXPECT_EQ(r.tokens[1], (std::vector<int>{0, 2}));
  EXPECT_EQ(r.tokens[2], (std::vector<int>{3, 1}));
  EXPECT_FALSE(r.kept[3][1]);
  EXPECT_TRUE(r.kept[1][1]);
}

TEST(ExpertRouting, SoftmaxAndItsBackwardAgreeWithFiniteDifferences) {
  std::vector<float> logits = {0.3f, -1.2f, 0.8f};
  std::vector<float> probs = logits;
  softmaxRows(probs.data(), 1, 3);
  EXPECT_NEAR(probs[0] + probs[1] + probs[2], 1.0f, 1e-6);
  const std::vector<float> dProbs = {1.0f, -2.0f, 0.5f};
  std::vector<float> dLogits(3);
  softmaxBackwardRows(probs.data(), dProbs.data(), dLogits.data(), 1, 3);
  for (int i = 0; i < 3; ++i) {
    std::vector<float> up = logits, down = logits;
    up[i] += 1e-3f;
    down[i] -= 1e-3f;
    softmaxRows(up.data(), 1, 3);
    softmaxRows(down.data(), 1, 3);
    double numeric = 0;
    for (int j = 0; j < 3; ++j)
      numeric += dProbs[j] * (up[j] - down[j]) / 2e-3;
    EXPECT_NEAR(dLogits[i], numeric, 1e-3) << i;
  }
}

}  // namespace
}  // namespace ps::runtime
