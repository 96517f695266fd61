#include "kernels/cpu/Attention.h"

#include <cmath>

#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/Linear.h"
#include "kernels/cpu/Softmax.h"

namespace ps::kernels {
namespace {

// Offsets of one (sequence, head) block inside the [R×3H] qkv, [R×H] ctx and probs tensors.
struct HeadView {
  long qkv;    // q of the head; k at +H, v at +2H; leading dimension 3H
  long ctx;    // leading dimension H
  long probs;  // [S×S], leading dimension S
};

HeadView headView(const AttentionShape& s, int b, int h) {
  const long row0 = static_cast<long>(b) * s.seq;
  const long d = s.headDim();
  return {row0 * 3 * s.hidden + h * d, row0 * s.hidden + h * d,
          (static_cast<long>(b) * s.heads + h) * s.seq * s.seq};
}

}  // namespace

void attentionForward(const AttentionShape& s, const float* x, const AttentionWeights& w,
                      const AttentionSaved& saved, float* out) {
  const int H = s.hidden;
  const int S = s.seq;
  const int d = s.headDim();
  const int R = static_cast<int>(s.rows());
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  linearForward(x, w.wqkv, w.bqkv, saved.qkv, R, H, 3 * H);
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const HeadView v = headView(s, b, h);
      const float* q = saved.qkv + v.qkv;
      float* p = saved.probs + v.probs;
      // Strided head views go straight to sgemm through the leading dimension 3H.
      sgemm(false, true, S, S, d, scale, q, 3 * H, q + H, 3 * H, 0.0f, p, S);
      causalSoftmaxForward(p, S);
      sgemm(false, false, S, d, S, 1.0f, p, S, q + 2 * H, 3 * H, 0.0f, saved.ctx + v.ctx, H);
    }
  }
  linearForward(saved.ctx, w.wo, w.bo, out, R, H, H);
}

void attentionBackwardInput(const AttentionShape& s, const AttentionWeights& w,
                            const AttentionSaved& saved, const float* dOut, float* dQkv, float* dX,
                            float* scratch, bool accumulate) {
  const int H = s.hidden;
  const int S = s.seq;
  const int d = s.headDim();
  const int R = static_cast<int>(s.rows());
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  float* dCtx = scratch;
  float* dP = scratch + s.rows() * H;
  linearBackwardInput(dOut, w.wo, dCtx, R, H, H);
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const HeadView v = headView(s, b, h);
      const float* q = saved.qkv + v.qkv;
      const float* p = saved.probs + v.probs;
      const float* dc = dCtx + v.ctx;
      float* dq = dQkv + v.qkv;
      sgemm(false, true, S, S, d, 1.0f, dc, H, q + 2 * H, 3 * H, 0.0f, dP, S);    // dP = dC·Vᵀ
      sgemm(true, false, S, d, S, 1.0f, p, S, dc, H, 0.0f, dq + 2 * H, 3 * H);    // dV = Pᵀ·dC
      causalSoftmaxBackward(p, dP, S);                                            // dP → dScores
      sgemm(false, false, S, d, S, scale, dP, S, q + H, 3 * H, 0.0f, dq, 3 * H);  // dQ = dS·K
      sgemm(true, false, S, d, S, scale, dP, S, q, 3 * H, 0.0f, dq + H, 3 * H);   // dK = dSᵀ·Q
    }
  }
  linearBackwardInput(dQkv, w.wqkv, dX, R, H, 3 * H, accumulate);
}

void attentionBackwardWeight(const AttentionShape& s, const float* x, const float* ctx,
                             const float* dOut, const float* dQkv, const AttentionGrads& g) {
  const int H = s.hidden;
  const int R = static_cast<int>(s.rows());
  linearBackwardWeight(dOut, ctx, g.wo, g.bo, R, H, H);
  linearBackwardWeight(dQkv, x, g.wqkv, g.bqkv, R, H, 3 * H);
}

}  // namespace ps::kernels
