#pragma once
// Elementwise helpers over n floats: the residual connection and buffer arithmetic.

namespace ps::kernels {

// Residual add: out = a + b (out may alias a or b). Its backward is the identity on both inputs,
// so a residual's input gradient is dOut plus the branch's gradient (see `accumulate` flags).
void residualAdd(const float* a, const float* b, float* out, long n);

// y += alpha · x.
void axpy(float alpha, const float* x, float* y, long n);

// x *= alpha.
void scale(float alpha, float* x, long n);

}  // namespace ps::kernels
