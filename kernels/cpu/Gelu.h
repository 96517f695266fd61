#pragma once
// GELU with the tanh approximation (as in GPT-2 / torch approximate="tanh"), elementwise over n.

namespace ps::kernels {

// y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))); y may alias x.
void geluForward(const float* x, float* y, long n);

// I: dx = dy · gelu'(x) (dx += … when accumulate); needs the forward input x, not y. dx may alias
// dy when not accumulating.
void geluBackward(const float* x, const float* dy, float* dx, long n, bool accumulate = false);

}  // namespace ps::kernels
