#pragma once
// Fully connected layer Y = X·Wᵀ + b (conventions in Kernels.h). X [rows×in], W [out×in],
// b [out] (may be null: no bias), Y [rows×out].

namespace ps::kernels {

// F: Y = X·Wᵀ + b.
void linearForward(const float* X, const float* W, const float* b, float* Y, int rows, int in,
                   int out);

// I: dX = dY·W (dX += dY·W when accumulate).
void linearBackwardInput(const float* dY, const float* W, float* dX, int rows, int in, int out,
                         bool accumulate = false);

// W: dW += dYᵀ·X and db += Σ_rows dY (db may be null).
void linearBackwardWeight(const float* dY, const float* X, float* dW, float* db, int rows, int in,
                          int out);

// db += Σ_rows dY for a [rows×cols] dY: the bias gradient of any layer that adds a bias per row.
void addColumnSums(const float* dY, float* db, int rows, int cols);

}  // namespace ps::kernels
