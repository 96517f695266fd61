#include "runtime/model/ExpertRouting.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ps::runtime {

void softmaxRows(float* logits, int rows, int experts) {
  for (int t = 0; t < rows; ++t) {
    float* row = logits + static_cast<long>(t) * experts;
    const float top = *std::max_element(row, row + experts);
    double sum = 0;
    for (int j = 0; j < experts; ++j) {
      row[j] = std::exp(row[j] - top);
      sum += row[j];
    }
    for (int j = 0; j < experts; ++j)
      row[j] = static_cast<float>(row[j] / sum);
  }
}

ExpertRoutes routeTokens(const float* probs, int rows, int experts, int topK, int capacity) {
  ExpertRoutes r;
  r.tokens.resize(static_cast<std::size_t>(experts));
  r.chosen.resize(static_cast<std::size_t>(rows));
  r.kept.assign(static_cast<std::size_t>(rows), std::vector<bool>(static_cast<std::size_t>(topK)));
  std::vector<int> order(static_cast<std::size_t>(experts));
  for (int t = 0; t < rows; ++t) {
    const float* row = probs + static_cast<long>(t) * experts;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[a] > row[b]; });
    r.chosen[t].assign(order.begin(), order.begin() + topK);
  }
  for (int choice = 0; choice < topK; ++choice)
    for (int t = 0; t < rows; ++t) {
      auto& slots = r.tokens[static_cast<std::size_t>(r.chosen[t][choice])];
      if (static_cast<int>(slots.size()) >= capacity) continue;
      slots.push_back(t);
      r.kept[t][choice] = true;
    }
  return r;
}

void softmaxBackwardRows(const float* probs, const float* dProbs, float* dLogits, int rows,
                         int experts) {
  for (int t = 0; t < rows; ++t) {
    const float* p = probs + static_cast<long>(t) * experts;
    const float* dp = dProbs + static_cast<long>(t) * experts;
    double dot = 0;
    for (int j = 0; j < experts; ++j)
      dot += static_cast<double>(p[j]) * dp[j];
    float* out = dLogits + static_cast<long>(t) * experts;
    for (int j = 0; j < experts; ++j)
      out[j] = static_cast<float>(p[j] * (dp[j] - dot));
  }
}

}  // namespace ps::runtime
