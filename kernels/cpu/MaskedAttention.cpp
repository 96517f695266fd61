#include "kernels/cpu/MaskedAttention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ps::kernels {
namespace {

// One query's view: the keys it may see are [0, prefixEnd) of the prefix and columns
// [first, last] of its row.
struct QueryView {
  const MaskedAttentionShape& s;
  const float* qkv;
  const AttentionPrefix* prefix;
  int r, h, c;
  int prefixEnd, first, last;

  long row(int col) const { return (static_cast<long>(r) * s.cols + col) * 3 * s.hidden; }
  const float* q() const { return qkv + row(c) + h * s.headDim(); }
  const float* key(int kk) const {
    if (kk < s.prefix)
      return prefix->k + (static_cast<long>(r) * prefix->capacity + kk) * s.hidden +
             h * s.headDim();
    return qkv + row(kk - s.prefix) + s.hidden + h * s.headDim();
  }
  const float* value(int kk) const {
    if (kk < s.prefix)
      return prefix->v + (static_cast<long>(r) * prefix->capacity + kk) * s.hidden +
             h * s.headDim();
    return qkv + row(kk - s.prefix) + 2 * s.hidden + h * s.headDim();
  }
  template <typename Visit>
  void forEachKey(Visit&& visit) const {
    for (int kk = 0; kk < prefixEnd; ++kk)
      visit(kk);
    for (int j = first; j <= last; ++j)
      visit(s.prefix + j);
  }
};

QueryView viewOf(const MaskedAttentionShape& s, const int* pieceStart, const float* qkv,
                 const AttentionPrefix* prefix, int r, int h, int c) {
  const int start = pieceStart[static_cast<long>(r) * s.cols + c];
  const int prefixEnd = (prefix != nullptr && start == 0) ? s.prefix : 0;
  return {s, qkv, prefix, r, h, c, prefixEnd, start, c};
}

float dot(const float* a, const float* b, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i)
    sum += a[i] * b[i];
  return sum;
}

void axpy(float alpha, const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

float* probsRow(const MaskedAttentionShape& s, float* probs, int r, int h, int c) {
  return probs + ((static_cast<long>(r) * s.heads + h) * s.cols + c) * s.keys();
}

// Writes this slice's keys and values into the prefix, for the slices after it.
void appendToPrefix(const MaskedAttentionShape& s, const float* qkv, const AttentionPrefix& p) {
  const int H = s.hidden;
  for (int r = 0; r < s.rows; ++r)
    for (int c = 0; c < s.cols; ++c) {
      const float* src = qkv + (static_cast<long>(r) * s.cols + c) * 3 * H;
      const long at = (static_cast<long>(r) * p.capacity + s.prefix + c) * H;
      std::memcpy(p.k + at, src + H, sizeof(float) * static_cast<std::size_t>(H));
      std::memcpy(p.v + at, src + 2 * H, sizeof(float) * static_cast<std::size_t>(H));
    }
}

}  // namespace

void maskedAttentionForward(const MaskedAttentionShape& s, const int* pieceStart, const float* qkv,
                            const AttentionPrefix* prefix, float* probs, float* ctx) {
  const int d = s.headDim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::fill(probs, probs + s.probsElems(), 0.0f);
  for (int r = 0; r < s.rows; ++r)
    for (int h = 0; h < s.heads; ++h)
      for (int c = 0; c < s.cols; ++c) {
        const QueryView view = viewOf(s, pieceStart, qkv, prefix, r, h, c);
        float* p = probsRow(s, probs, r, h, c);
        float max = -std::numeric_limits<float>::infinity();
        view.forEachKey([&](int kk) {
          p[kk] = scale * dot(view.q(), view.key(kk), d);
          max = std::max(max, p[kk]);
        });
        float sum = 0;
        view.forEachKey([&](int kk) {
          p[kk] = std::exp(p[kk] - max);
          sum += p[kk];
        });
        float* out = ctx + (static_cast<long>(r) * s.cols + c) * s.hidden + h * d;
        std::fill(out, out + d, 0.0f);
        view.forEachKey([&](int kk) {
          p[kk] /= sum;
          axpy(p[kk], view.value(kk), out, d);
        });
      }
  if (prefix != nullptr) appendToPrefix(s, qkv, *prefix);
}

void maskedAttentionBackward(const MaskedAttentionShape& s, const int* pieceStart, const float* qkv,
                             const float* probs, const float* dCtx, const AttentionPrefix* prefix,
                             float* dQkv) {
  const int H = s.hidden;
  const int d = s.headDim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::fill(dQkv, dQkv + s.tokens() * 3 * H, 0.0f);
  // Gradients of key kk of (r, h): the prefix's accumulators, or this slice's dQkv.
  const auto dKey = [&](int r, int h, int kk, int part) -> float* {
    if (kk < s.prefix)
      return (part == 1 ? prefix->dk : prefix->dv) +
             (static_cast<long>(r) * prefix->capacity + kk) * H + h * d;
    return dQkv + (static_cast<long>(r) * s.cols + kk - s.prefix) * 3 * H + part * H + h * d;
  };
  for (int r = 0; r < s.rows; ++r)
    for (int h = 0; h < s.heads; ++h)
      for (int c = 0; c < s.cols; ++c) {
        const QueryView view = viewOf(s, pieceStart, qkv, prefix, r, h, c);
        const float* p = probs + ((static_cast<long>(r) * s.heads + h) * s.cols + c) * s.keys();
        const float* dc = dCtx + (static_cast<long>(r) * s.cols + c) * H + h * d;
        // dP = dC·v; dScores = P ⊙ (dP − Σ P·dP).
        float weighted = 0;
        view.forEachKey([&](int kk) { weighted += p[kk] * dot(dc, view.value(kk), d); });
        float* dq = dQkv + (static_cast<long>(r) * s.cols + c) * 3 * H + h * d;
        view.forEachKey([&](int kk) {
          const float dp = dot(dc, view.value(kk), d);
          const float ds = p[kk] * (dp - weighted) * scale;
          axpy(p[kk], dc, dKey(r, h, kk, 2), d);     // dV += P·dC
          axpy(ds, view.key(kk), dq, d);             // dQ += dS·K
          axpy(ds, view.q(), dKey(r, h, kk, 1), d);  // dK += dS·Q
        });
      }
  if (prefix == nullptr) return;
  // What the later slices' queries gave this slice's keys and values.
  for (int r = 0; r < s.rows; ++r)
    for (int c = 0; c < s.cols; ++c) {
      const long at = (static_cast<long>(r) * prefix->capacity + s.prefix + c) * H;
      float* dst = dQkv + (static_cast<long>(r) * s.cols + c) * 3 * H;
      axpy(1.0f, prefix->dk + at, dst + H, H);
      axpy(1.0f, prefix->dv + at, dst + 2 * H, H);
    }
}

}  // namespace ps::kernels
