#pragma once
// Multi-head causal self-attention (conventions in Kernels.h):
//   qkv = x·Wqkvᵀ + bqkv                      [R×3H], columns q | k | v, head h at h·d (d =
//   H/heads) probs = causalSoftmax(q_h·k_hᵀ / √d)      [batch][heads][S×S] per sequence ctx_h =
//   probs·v_h                         [R×H] out = ctx·Woᵀ + bo                        [R×H]
// The backward is split for zero-bubble schedules: the I part produces dX and dQkv (the gradient
// of the QKV projection's output), which the W part later needs with x, ctx and dOut.

namespace ps::kernels {

struct AttentionShape {
  int batch = 1;
  int seq = 1;
  int hidden = 1;
  int heads = 1;  // must divide hidden

  long rows() const { return static_cast<long>(batch) * seq; }
  int headDim() const { return hidden / heads; }
  long qkvElems() const { return rows() * 3 * hidden; }
  long probsElems() const { return static_cast<long>(batch) * heads * seq * seq; }
  long ctxElems() const { return rows() * hidden; }
  // Scratch for the I part: dCtx [R×H] and one head's dProbs [S×S].
  long backwardScratchElems() const { return rows() * hidden + static_cast<long>(seq) * seq; }
};

struct AttentionWeights {
  const float* wqkv;  // [3H×H]
  const float* bqkv;  // [3H]
  const float* wo;    // [H×H]
  const float* bo;    // [H]
};

struct AttentionGrads {
  float* wqkv;
  float* bqkv;
  float* wo;
  float* bo;
};

// What the forward keeps for the backward; caller-owned, sized by AttentionShape.
struct AttentionSaved {
  float* qkv;
  float* probs;
  float* ctx;
};

// F: x [R×H] → out [R×H]; fills saved.
void attentionForward(const AttentionShape& s, const float* x, const AttentionWeights& w,
                      const AttentionSaved& saved, float* out);

// I: dOut → dX (written, or added when accumulate) and dQkv [R×3H] (written; keep it for W).
void attentionBackwardInput(const AttentionShape& s, const AttentionWeights& w,
                            const AttentionSaved& saved, const float* dOut, float* dQkv, float* dX,
                            float* scratch, bool accumulate = false);

// W: adds the parameter gradients, from the forward input x, saved ctx, dOut and I's dQkv.
void attentionBackwardWeight(const AttentionShape& s, const float* x, const float* ctx,
                             const float* dOut, const float* dQkv, const AttentionGrads& g);

}  // namespace ps::kernels
