#pragma once
// Softmax over the last dimension of [rows×cols], and its causal variant for attention scores.

namespace ps::kernels {

// F: y = softmax(x) per row (max-subtracted); y may alias x.
void softmaxForward(const float* x, float* y, int rows, int cols);

// I: dx = y ⊙ (dy − Σ_cols dy·y) per row; dx may alias dy.
void softmaxBackward(const float* y, const float* dy, float* dx, int rows, int cols);

// F in place on square scores [n×n]: row i is the softmax of its first i+1 entries (a token
// attends to itself and earlier ones); entries above the diagonal become exactly 0.
void causalSoftmaxForward(float* scores, int n);

// I in place: dp [n×n] (∂L/∂probs) becomes ∂L/∂scores; masked entries become 0.
void causalSoftmaxBackward(const float* probs, float* dp, int n);

}  // namespace ps::kernels
