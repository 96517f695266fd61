#include "runtime/model/MoeBlock.h"

#include <algorithm>
#include <string>

#include "kernels/ComputeDevice.h"
#include "runtime/model/ExpertRouting.h"

namespace ps::runtime {
namespace {

void requireHost(const ActivationStash& stash) {
  if (!stash.device().isHost())
    throw kernels::DeviceError("the moe block routes tokens on the host; its device is " +
                               stash.device().name());
}

}  // namespace

MoeBlock::MoeBlock(const ModelConfig& config)
    : Layer(config),
      tokens_(config.rows()),
      hidden_(config.hidden),
      experts_(config.experts),
      topK_(config.topK),
      capacity_(config.expertCapacity()) {
  const std::size_t H = hidden_, E = experts_;
  router_ = layout_.add("router.w", E * H, hidden_);
  routerBias_ = layout_.add("router.b", E);
  branches_.reserve(E);
  for (int j = 0; j < experts_; ++j)
    branches_.emplace_back(layout_, "expert" + std::to_string(j), capacity_, hidden_,
                           config.ffnHidden(), gatheredSlot(j) + 2);
}

void MoeBlock::forward(const float* p, const float* in, float* out, ActivationStash& st) const {
  requireHost(st);
  kernels::ComputeDevice& k = st.device();
  const long n = config_.activationElems();
  const float* x = st.copyIn(ActivationStash::kInputSlot, in, n);
  float* probs = st.allocate(kProbs, static_cast<std::size_t>(tokens_) * experts_);
  k.linearForward(x, p + router_, p + routerBias_, probs, tokens_, hidden_, experts_);
  softmaxRows(probs, tokens_, experts_);
  const ExpertRoutes routes = routeTokens(probs, tokens_, experts_, topK_, capacity_);
  k.copy(out, x, 4 * static_cast<std::size_t>(n));  // the residual
  for (int j = 0; j < experts_; ++j) {
    const auto& rows = routes.tokens[static_cast<std::size_t>(j)];
    float* gathered = st.allocate(gatheredSlot(j), static_cast<std::size_t>(capacity_) * hidden_);
    for (std::size_t c = 0; c < rows.size(); ++c)
      std::copy_n(x + static_cast<long>(rows[c]) * hidden_, hidden_, gathered + c * hidden_);
    float* expertOut = st.allocate(outputSlot(j), static_cast<std::size_t>(capacity_) * hidden_);
    branches_[static_cast<std::size_t>(j)].forward(p, gathered, expertOut, st);
    for (std::size_t c = 0; c < rows.size(); ++c) {
      const float gate = probs[static_cast<long>(rows[c]) * experts_ + j];
      float* y = out + static_cast<long>(rows[c]) * hidden_;
      const float* e = expertOut + c * hidden_;
      for (int h = 0; h < hidden_; ++h)
        y[h] += gate * e[h];
    }
  }
}

void MoeBlock::backwardInput(const float* p, const float* dOut, ActivationStash& st,
                             float* dIn) const {
  requireHost(st);
  kernels::ComputeDevice& k = st.device();
  const long n = config_.activationElems();
  k.copy(dIn, dOut, 4 * static_cast<std::size_t>(n));  // the residual
  const float* probs = st.get(kProbs);
  const ExpertRoutes routes = routeTokens(probs, tokens_, experts_, topK_, capacity_);
  std::vector<float> dProbs(static_cast<std::size_t>(tokens_) * experts_, 0.0f);
  const std::size_t slice = static_cast<std::size_t>(capacity_) * hidden_;
  for (int j = 0; j < experts_; ++j) {
    const auto& rows = routes.tokens[static_cast<std::size_t>(j)];
    const float* expertOut = st.get(outputSlot(j));
    Tensor dExpertOut = st.scratch(slice);
    for (std::size_t c = 0; c < rows.size(); ++c) {
      const long t = rows[c];
      const float gate = probs[t * experts_ + j];
      const float* dy = dOut + t * hidden_;
      const float* e = expertOut + c * hidden_;
      float* de = dExpertOut.data() + c * hidden_;
      double dot = 0;
      for (int h = 0; h < hidden_; ++h) {
        de[h] = gate * dy[h];
        dot += static_cast<double>(dy[h]) * e[h];
      }
      dProbs[static_cast<std::size_t>(t * experts_ + j)] = static_cast<float>(dot);
    }
    st.release(outputSlot(j));
    Tensor dGathered = st.scratch(slice);
    branches_[static_cast<std::size_t>(j)].backwardInput(
        p, st.get(gatheredSlot(j)), dExpertOut.data(), st, dGathered.data(), false);
    for (std::size_t c = 0; c < rows.size(); ++c) {
      float* dx = dIn + static_cast<long>(rows[c]) * hidden_;
      const float* dg = dGathered.data() + c * hidden_;
      for (int h = 0; h < hidden_; ++h)
        dx[h] += dg[h];
    }
  }
  float* dLogits = st.allocate(kDLogits, static_cast<std::size_t>(tokens_) * experts_);
  softmaxBackwardRows(probs, dProbs.data(), dLogits, tokens_, experts_);
  st.release(kProbs);
  k.linearBackwardInput(dLogits, p + router_, dIn, tokens_, hidden_, experts_, true);
}

void MoeBlock::backwardWeight(ActivationStash& st, float* g) const {
  kernels::ComputeDevice& k = st.device();
  k.linearBackwardWeight(st.get(kDLogits), st.get(ActivationStash::kInputSlot), g + router_,
                         g + routerBias_, tokens_, hidden_, experts_);
  for (int j = 0; j < experts_; ++j)
    branches_[static_cast<std::size_t>(j)].backwardWeight(st.get(gatheredSlot(j)), st, g);
  st.clear();
}

std::int64_t MoeBlock::forwardStashBytes() const {
  // x [T×H], the probabilities [T×E]; per expert its tokens and output [C×H] and its branch.
  const std::int64_t t = tokens_, c = capacity_;
  std::int64_t bytes = 4 * (t * hidden_ + t * experts_);
  for (const MlpSublayer& e : branches_)
    bytes += 4 * (2 * c * hidden_) + e.forwardStashBytes();
  return bytes;
}

std::int64_t MoeBlock::backwardStashBytes() const {
  // After I: x, ∂L/∂logits in place of the probabilities; per expert its tokens (its output
  // freed) and its branch's backward stash.
  const std::int64_t t = tokens_, c = capacity_;
  std::int64_t bytes = 4 * (t * hidden_ + t * experts_);
  for (const MlpSublayer& e : branches_)
    bytes += 4 * (c * hidden_) + e.backwardStashBytes();
  return bytes;
}

}  // namespace ps::runtime
