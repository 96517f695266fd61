#include "runtime/model/AttentionSublayer.h"

#include "kernels/cpu/MaskedAttention.h"

namespace ps::runtime {

namespace k = ps::kernels;

AttentionSublayer::AttentionSublayer(ParamLayout& layout, const std::string& prefix,
                                     const k::AttentionShape& shape, int firstSlot)
    : shape_(shape), firstSlot_(firstSlot) {
  const std::size_t H = shape.hidden;
  gamma_ = layout.add(prefix + ".ln.gamma", H);
  beta_ = layout.add(prefix + ".ln.beta", H);
  wqkv_ = layout.add(prefix + ".wqkv", 3 * H * H, shape.hidden);
  bqkv_ = layout.add(prefix + ".bqkv", 3 * H);
  wo_ = layout.add(prefix + ".wo", H * H, shape.hidden);
  bo_ = layout.add(prefix + ".bo", H);
}

k::AttentionWeights AttentionSublayer::weights(const float* p) const {
  return {p + wqkv_, p + bqkv_, p + wo_, p + bo_};
}

void AttentionSublayer::forward(const float* p, const float* x, float* out,
                                ActivationStash& st) const {
  const int rows = static_cast<int>(shape_.rows());
  kernels::ComputeDevice& dev = st.device();
  float* mean = st.allocate(slot(kMean), rows);
  float* rstd = st.allocate(slot(kRstd), rows);
  float* a = st.allocate(slot(kLnOut), shape_.ctxElems());
  dev.layerNormForward(x, p + gamma_, p + beta_, a, mean, rstd, rows, shape_.hidden);
  if (const TokenContext* t = st.tokens()) return maskedForward(p, a, out, st, *t);
  const k::AttentionSaved saved{st.allocate(slot(kQkv), shape_.qkvElems()),
                                st.allocate(slot(kProbs), shape_.probsElems()),
                                st.allocate(slot(kCtx), shape_.ctxElems())};
  dev.attentionForward(shape_, a, weights(p), saved, out);
}

void AttentionSublayer::backwardInput(const float* p, const float* x, const float* dOut,
                                      ActivationStash& st, float* dX, bool accumulate) const {
  const int rows = static_cast<int>(shape_.rows());
  kernels::ComputeDevice& dev = st.device();
  st.copyIn(slot(kDOut), dOut, shape_.ctxElems());  // W needs it for Wo
  float* dqkv = st.allocate(slot(kDQkv), shape_.qkvElems());
  float* da = st.allocate(slot(kDLnOut), shape_.ctxElems());
  if (const TokenContext* t = st.tokens()) {
    maskedBackwardInput(p, dOut, st, *t, dqkv, da);
  } else {
    Tensor scratch = st.scratch(shape_.backwardScratchElems());
    const k::AttentionSaved saved{st.get(slot(kQkv)), st.get(slot(kProbs)), st.get(slot(kCtx))};
    dev.attentionBackwardInput(shape_, weights(p), saved, dOut, dqkv, da, scratch.data(), false);
  }
  st.release(slot(kQkv));  // W needs ctx and dQkv, not q/k/v or the probabilities
  st.release(slot(kProbs));
  dev.layerNormBackwardInput(da, x, p + gamma_, st.get(slot(kMean)), st.get(slot(kRstd)), dX, rows,
                             shape_.hidden, accumulate);
}

void AttentionSublayer::backwardWeight(const float* x, ActivationStash& st, float* g) const {
  const int rows = static_cast<int>(shape_.rows());
  kernels::ComputeDevice& dev = st.device();
  dev.attentionBackwardWeight(shape_, st.get(slot(kLnOut)), st.get(slot(kCtx)), st.get(slot(kDOut)),
                              st.get(slot(kDQkv)), {g + wqkv_, g + bqkv_, g + wo_, g + bo_});
  dev.layerNormBackwardWeight(st.get(slot(kDLnOut)), x, st.get(slot(kMean)), st.get(slot(kRstd)),
                              g + gamma_, g + beta_, rows, shape_.hidden);
  for (int s = kMean; s <= kDLnOut; ++s)
    st.release(slot(static_cast<Slot>(s)));
}

namespace {
k::MaskedAttentionShape maskedShape(const k::AttentionShape& s, const TokenContext& t) {
  return {t.rows, t.cols, s.hidden, s.heads, t.prefix};
}
}  // namespace

void AttentionSublayer::maskedForward(const float* p, const float* a, float* out,
                                      ActivationStash& st, const TokenContext& t) const {
  const k::MaskedAttentionShape ms = maskedShape(shape_, t);
  const int rows = static_cast<int>(ms.tokens());
  const int H = shape_.hidden;
  kernels::ComputeDevice& dev = st.device();
  float* qkv = st.allocate(slot(kQkv), shape_.qkvElems());
  float* probs = st.allocate(slot(kProbs), static_cast<std::size_t>(ms.probsElems()));
  float* ctx = st.allocate(slot(kCtx), shape_.ctxElems());
  dev.linearForward(a, p + wqkv_, p + bqkv_, qkv, rows, H, 3 * H);
  k::maskedAttentionForward(ms, t.pieceStart, qkv, t.cache, probs, ctx);
  dev.linearForward(ctx, p + wo_, p + bo_, out, rows, H, H);
}

void AttentionSublayer::maskedBackwardInput(const float* p, const float* dOut, ActivationStash& st,
                                            const TokenContext& t, float* dQkv, float* dA) const {
  const k::MaskedAttentionShape ms = maskedShape(shape_, t);
  const int rows = static_cast<int>(ms.tokens());
  const int H = shape_.hidden;
  kernels::ComputeDevice& dev = st.device();
  Tensor dCtx = st.scratch(shape_.ctxElems());
  dev.linearBackwardInput(dOut, p + wo_, dCtx.data(), rows, H, H, false);
  k::maskedAttentionBackward(ms, t.pieceStart, st.get(slot(kQkv)), st.get(slot(kProbs)),
                             dCtx.data(), t.cache, dQkv);
  dev.linearBackwardInput(dQkv, p + wqkv_, dA, rows, H, 3 * H, false);
}

std::int64_t AttentionSublayer::forwardStashBytes() const {
  // mean, rstd [R]; LN output, ctx [R×H]; qkv [R×3H]; probabilities [B·heads·S×S].
  return 4 * (2 * shape_.rows() + 2 * shape_.ctxElems() + shape_.qkvElems() + shape_.probsElems());
}

std::int64_t AttentionSublayer::backwardStashBytes() const {
  // I frees qkv and the probabilities and adds dOut, dLnOut [R×H] and dQkv [R×3H].
  return 4 * (2 * shape_.rows() + 4 * shape_.ctxElems() + shape_.qkvElems());
}

}  // namespace ps::runtime
