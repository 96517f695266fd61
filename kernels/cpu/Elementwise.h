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

// One Adam update of n weights: m, v the moments, c1 and c2 the bias corrections 1/(1 − βᵗ).
void adamUpdate(float* params, const float* grads, float* m, float* v, long n, float lr,
                float beta1, float beta2, float eps, float c1, float c2);

}  // namespace ps::kernels
