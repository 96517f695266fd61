#include "runtime/model/MlpSublayer.h"

namespace ps::runtime {

MlpSublayer::MlpSublayer(ParamLayout& layout, const std::string& prefix, int rows, int hidden,
                         int ffn, int firstSlot, int spikingSteps)
    : rows_(rows), hidden_(hidden), ffn_(ffn), firstSlot_(firstSlot), spikingSteps_(spikingSteps) {
  const std::size_t H = hidden;
  const std::size_t F = ffn;
  gamma_ = layout.add(prefix + ".ln.gamma", H);
  beta_ = layout.add(prefix + ".ln.beta", H);
  w1_ = layout.add(prefix + ".w1", F * H, hidden);
  b1_ = layout.add(prefix + ".b1", F);
  w2_ = layout.add(prefix + ".w2", H * F, ffn);
  b2_ = layout.add(prefix + ".b2", H);
}

void MlpSublayer::forward(const float* p, const float* x, float* out, ActivationStash& st) const {
  const std::size_t rh = static_cast<std::size_t>(rows_) * hidden_;
  const std::size_t rf = static_cast<std::size_t>(rows_) * ffn_;
  kernels::ComputeDevice& k = st.device();
  float* mean = st.allocate(slot(kMean), rows_);
  float* rstd = st.allocate(slot(kRstd), rows_);
  float* a = st.allocate(slot(kLnOut), rh);
  k.layerNormForward(x, p + gamma_, p + beta_, a, mean, rstd, rows_, hidden_);
  float* h = st.allocate(slot(kHidden), rf);
  k.linearForward(a, p + w1_, p + b1_, h, rows_, hidden_, ffn_);
  float* g = st.allocate(slot(kAct), rf);
  if (spikingSteps_ > 0)
    k.lifForward(h, g, static_cast<long>(rf), spikingSteps_);
  else
    k.geluForward(h, g, static_cast<long>(rf));
  k.linearForward(g, p + w2_, p + b2_, out, rows_, ffn_, hidden_);
}

void MlpSublayer::backwardInput(const float* p, const float* x, const float* dOut,
                                ActivationStash& st, float* dX, bool accumulate) const {
  const std::size_t rh = static_cast<std::size_t>(rows_) * hidden_;
  const std::size_t rf = static_cast<std::size_t>(rows_) * ffn_;
  kernels::ComputeDevice& k = st.device();
  st.copyIn(slot(kDOut), dOut, rh);  // W needs dOut for W2; the caller's buffer may be gone
  float* dh = st.allocate(slot(kDHidden), rf);
  k.linearBackwardInput(dOut, p + w2_, dh, rows_, ffn_, hidden_, false);  // dGELU output
  if (spikingSteps_ > 0)
    k.lifBackward(st.get(slot(kHidden)), dh, dh, static_cast<long>(rf), spikingSteps_, false);
  else
    k.geluBackward(st.get(slot(kHidden)), dh, dh, static_cast<long>(rf), false);
  st.release(slot(kHidden));  // only the activation's backward needed the pre-activation
  float* da = st.allocate(slot(kDLnOut), rh);
  k.linearBackwardInput(dh, p + w1_, da, rows_, hidden_, ffn_, false);
  k.layerNormBackwardInput(da, x, p + gamma_, st.get(slot(kMean)), st.get(slot(kRstd)), dX, rows_,
                           hidden_, accumulate);
}

void MlpSublayer::backwardWeight(const float* x, ActivationStash& st, float* g) const {
  kernels::ComputeDevice& k = st.device();
  k.linearBackwardWeight(st.get(slot(kDOut)), st.get(slot(kAct)), g + w2_, g + b2_, rows_, ffn_,
                         hidden_);
  k.linearBackwardWeight(st.get(slot(kDHidden)), st.get(slot(kLnOut)), g + w1_, g + b1_, rows_,
                         hidden_, ffn_);
  k.layerNormBackwardWeight(st.get(slot(kDLnOut)), x, st.get(slot(kMean)), st.get(slot(kRstd)),
                            g + gamma_, g + beta_, rows_, hidden_);
  for (int s = kMean; s <= kDLnOut; ++s)
    st.release(slot(static_cast<Slot>(s)));
}

std::int64_t MlpSublayer::forwardStashBytes() const {
  // mean, rstd [R]; LN output [R×H]; pre- and post-GELU [R×F].
  const std::int64_t r = rows_;
  return 4 * (2 * r + r * hidden_ + 2 * r * ffn_);
}

std::int64_t MlpSublayer::backwardStashBytes() const {
  // I frees the pre-GELU [R×F] and adds dOut, dLnOut [R×H] and dHidden [R×F].
  const std::int64_t r = rows_;
  return forwardStashBytes() + 4 * (2 * r * hidden_);
}

}  // namespace ps::runtime
