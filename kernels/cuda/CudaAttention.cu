// Causal multi-head self-attention, as kernels/cpu/Attention.cpp, with the per-(sequence, head)
// GEMMs batched: heads (or sequences, whichever are more) go to one strided-batched GEMM on the
// head views of the [R×3H] qkv (leading dimension 3H), and the loop runs over the other index.
// The causal softmax is one warp per row, the formulas of kernels/cpu/Softmax.cpp.

#include <cmath>

#include "kernels/cuda/CudaAttention.cuh"

namespace ps::kernels::cuda {
namespace {

constexpr int kWarpsPerBlock = 8;

// Row `row` of `matrices` consecutive [S×S] score blocks sits at matrix row / S, line row % S.
__device__ inline long matrixRow(long row, int S, long stride) {
  return (row / S) * stride + (row % S) * static_cast<long>(S);
}

// Row i keeps entries 0..i: exp(x − max), normalised; the masked rest is zero.
__global__ void causalSoftmaxForwardKernel(float* scores, long stride, long rows, int S) {
  const long row = static_cast<long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  const int i = static_cast<int>(row % S);
  float* p = scores + matrixRow(row, S, stride);
  float mx = -INFINITY;
  for (int c = lane; c <= i; c += 32)
    mx = fmaxf(mx, p[c]);
  mx = warpMax(mx);
  float sum = 0.0f;
  for (int c = lane; c <= i; c += 32) {
    const float e = expf(p[c] - mx);
    p[c] = e;
    sum += e;
  }
  const float inv = 1.0f / warpSum(sum);
  for (int c = lane; c < S; c += 32)
    p[c] = c <= i ? p[c] * inv : 0.0f;
}

// In place on dp: dS = P·(dP − Σ dP·P) on entries 0..i, zero beyond.
__global__ void causalSoftmaxBackwardKernel(const float* probs, long probsStride, float* dp,
                                            long dpStride, long rows, int S) {
  const long row = static_cast<long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  const int i = static_cast<int>(row % S);
  const float* p = probs + matrixRow(row, S, probsStride);
  float* d = dp + matrixRow(row, S, dpStride);
  float dot = 0.0f;
  for (int c = lane; c <= i; c += 32)
    dot = __fadd_rn(dot, __fmul_rn(d[c], p[c]));
  dot = warpSum(dot);
  for (int c = lane; c < S; c += 32)
    d[c] = c <= i ? __fmul_rn(p[c], __fsub_rn(d[c], dot)) : 0.0f;
}

unsigned rowBlocks(long rows) {
  return static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

// How the batch·heads (sequence, head) blocks are walked: `outer` steps, each one GEMM batch of
// `inner` blocks at fixed strides (elements) in qkv, ctx and probs.
struct HeadLoop {
  int outer, inner;
  long long qkvStride, ctxStride, probsStride;  // between blocks of one GEMM batch
  long qkvStep, ctxStep, probsStep;             // between outer steps
};

HeadLoop headLoop(const AttentionShape& s) {
  const long S = s.seq, H = s.hidden, d = s.headDim();
  const long headProbs = S * S;
  const long seqProbs = s.heads * headProbs;
  if (s.heads >= s.batch)  // batch the heads of one sequence
    return {s.batch, s.heads, d, d, headProbs, S * 3 * H, S * H, seqProbs};
  return {s.heads, s.batch, S * 3 * H, S * H, seqProbs, d, d, headProbs};  // one head, all seqs
}

}  // namespace

void attentionForward(const CudaQueue& queue, const AttentionShape& s, const float* x,
                      const AttentionWeights& w, const AttentionSaved& saved, float* out) {
  const int H = s.hidden, S = s.seq, d = s.headDim();
  const int R = static_cast<int>(s.rows());
  if (R <= 0) return;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const HeadLoop L = headLoop(s);
  linearForward(queue, x, w.wqkv, w.bqkv, saved.qkv, R, H, 3 * H);
  for (int o = 0; o < L.outer; ++o) {
    const float* q = saved.qkv + o * L.qkvStep;
    // scores = scale · q·kᵀ
    gemm(queue, {false, true, S, S, d, scale, q, 3 * H, L.qkvStride, q + H, 3 * H, L.qkvStride,
                 0.0f, saved.probs + o * L.probsStep, S, L.probsStride, L.inner});
  }
  // probs holds batch·heads consecutive [S×S] blocks: one launch normalises every row.
  const long rows = s.probsElems() / S;
  causalSoftmaxForwardKernel<<<rowBlocks(rows), kWarpsPerBlock * 32, 0, queue.stream>>>(
      saved.probs, static_cast<long>(S) * S, rows, S);
  checkLaunch("causalSoftmaxForward");
  for (int o = 0; o < L.outer; ++o) {
    const float* q = saved.qkv + o * L.qkvStep;
    // ctx = probs·v
    gemm(queue,
         {false, false, S, d, S, 1.0f, saved.probs + o * L.probsStep, S, L.probsStride, q + 2 * H,
          3 * H, L.qkvStride, 0.0f, saved.ctx + o * L.ctxStep, H, L.ctxStride, L.inner});
  }
  linearForward(queue, saved.ctx, w.wo, w.bo, out, R, H, H);
}

void attentionBackwardInput(const CudaQueue& queue, const AttentionShape& s,
                            const AttentionWeights& w, const AttentionSaved& saved,
                            const float* dOut, float* dQkv, float* dX, float* scratch,
                            bool accumulate) {
  const int H = s.hidden, S = s.seq, d = s.headDim();
  const int R = static_cast<int>(s.rows());
  if (R <= 0) return;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const HeadLoop L = headLoop(s);
  const long long SS = static_cast<long long>(S) * S;
  float* dCtx = scratch;
  linearBackwardInput(queue, dOut, w.wo, dCtx, R, H, H, false);
  // The caller's scratch holds one head's dProbs; a batch of heads needs `inner` of them.
  Scratch dProbs(queue, static_cast<std::size_t>(L.inner) * SS * sizeof(float));
  float* dP = dProbs.as<float>();
  for (int o = 0; o < L.outer; ++o) {
    const float* q = saved.qkv + o * L.qkvStep;
    const float* p = saved.probs + o * L.probsStep;
    const float* dc = dCtx + o * L.ctxStep;
    float* dq = dQkv + o * L.qkvStep;
    // dP = dC·vᵀ
    gemm(queue, {false, true, S, S, d, 1.0f, dc, H, L.ctxStride, q + 2 * H, 3 * H, L.qkvStride,
                 0.0f, dP, S, SS, L.inner});
    // dV = Pᵀ·dC
    gemm(queue, {true, false, S, d, S, 1.0f, p, S, L.probsStride, dc, H, L.ctxStride, 0.0f,
                 dq + 2 * H, 3 * H, L.qkvStride, L.inner});
    const long rows = static_cast<long>(L.inner) * S;
    causalSoftmaxBackwardKernel<<<rowBlocks(rows), kWarpsPerBlock * 32, 0, queue.stream>>>(
        p, L.probsStride, dP, SS, rows, S);
    checkLaunch("causalSoftmaxBackward");
    // dQ = scale · dS·k
    gemm(queue, {false, false, S, d, S, scale, dP, S, SS, q + H, 3 * H, L.qkvStride, 0.0f, dq,
                 3 * H, L.qkvStride, L.inner});
    // dK = scale · dSᵀ·q
    gemm(queue, {true, false, S, d, S, scale, dP, S, SS, q, 3 * H, L.qkvStride, 0.0f, dq + H, 3 * H,
                 L.qkvStride, L.inner});
  }
  linearBackwardInput(queue, dQkv, w.wqkv, dX, R, H, 3 * H, accumulate);
}

}  // namespace ps::kernels::cuda
