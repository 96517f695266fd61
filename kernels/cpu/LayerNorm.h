#pragma once
// Layer normalisation over the last dimension of x [rows×cols]:
// y = (x − mean) · rstd · gamma + beta, rstd = 1/√(var + eps), var the biased variance.
// The forward saves mean [rows] and rstd [rows]; backward recomputes x̂ from x, mean, rstd.

namespace ps::kernels {

inline constexpr float kLayerNormEps = 1e-5f;

// F: y may not alias x (the backward needs x).
void layerNormForward(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                      float* rstd, int rows, int cols, float eps = kLayerNormEps);

// I: dx = ∂L/∂x given dy (dx += … when accumulate, e.g. into a residual's gradient).
void layerNormBackwardInput(const float* dy, const float* x, const float* gamma, const float* mean,
                            const float* rstd, float* dx, int rows, int cols,
                            bool accumulate = false);

// W: dgamma += Σ_rows dy·x̂, dbeta += Σ_rows dy.
void layerNormBackwardWeight(const float* dy, const float* x, const float* mean, const float* rstd,
                             float* dgamma, float* dbeta, int rows, int cols);

}  // namespace ps::kernels
