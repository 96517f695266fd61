#pragma once
// The router of the mixture-of-experts block (MoeBlock), on the host: each token's softmax over
// the experts, its top-k, and which tokens each expert takes under its capacity. GShard's order:
// every token's first choice is placed before any token's second, tokens in row order, so a
// token's first choice is the last to be dropped. Ties between experts go to the lower index.

#include <vector>

namespace ps::runtime {

struct ExpertRoutes {
  // Per expert, the token rows it takes, in slot order (at most the capacity).
  std::vector<std::vector<int>> tokens;
  // Per token row, the k experts it chose, best first, and whether each kept its slot.
  std::vector<std::vector<int>> chosen;
  std::vector<std::vector<bool>> kept;
};

// Softmax of each row of `logits` [rows × experts] in place.
void softmaxRows(float* logits, int rows, int experts);

// Routes `rows` tokens by their probabilities [rows × experts].
ExpertRoutes routeTokens(const float* probs, int rows, int experts, int topK, int capacity);

// ∂L/∂logits [rows × experts] of a softmax from ∂L/∂probs: p ⊙ (dp − Σ p ⊙ dp) per row.
void softmaxBackwardRows(const float* probs, const float* dProbs, float* dLogits, int rows,
                         int experts);

}  // namespace ps::runtime
