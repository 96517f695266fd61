#include "kernels/cpu/Loss.h"

#include <cmath>

#include "kernels/cpu/Softmax.h"

namespace ps::kernels {

double mseForward(const float* y, const float* target, long n) {
  double sum = 0;
  for (long i = 0; i < n; ++i) {
    const double e = static_cast<double>(y[i]) - target[i];
    sum += e * e;
  }
  return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

void mseBackward(const float* y, const float* target, float* dy, long n, float scale) {
  const float k = 2.0f * scale / static_cast<float>(n);
  for (long i = 0; i < n; ++i)
    dy[i] = k * (y[i] - target[i]);
}

double crossEntropyForward(const float* logits, const int* labels, float* probs, int rows,
                           int classes) {
  softmaxForward(logits, probs, rows, classes);
  double sum = 0;
  for (int r = 0; r < rows; ++r) {
    // The floor keeps the loss finite when a probability underflows to 0.
    const double p = probs[static_cast<long>(r) * classes + labels[r]];
    sum -= std::log(p > 1e-30 ? p : 1e-30);
  }
  return rows > 0 ? sum / rows : 0.0;
}

void crossEntropyBackward(const float* probs, const int* labels, float* dlogits, int rows,
                          int classes, float scale) {
  const float k = scale / static_cast<float>(rows);
  for (int r = 0; r < rows; ++r) {
    const long off = static_cast<long>(r) * classes;
    for (int c = 0; c < classes; ++c)
      dlogits[off + c] = k * probs[off + c];
    dlogits[off + labels[r]] -= k;
  }
}

}  // namespace ps::kernels
