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

// Tensors a MlpSublayer registers (its random streams in the full layer's order).
constexpr std::size_t kBranchTensors = 6;

}  // namespace

MoeBlock::MoeBlock(const ModelConfig& config)
    : Layer(config),
      tokens_(config.rows()),
      hidden_(config.hidden),
      experts_(config.experts),
      topK_(config.topK),
      capacity_(config.expertCapacity()),
      shards_(std::max(1, config.expertShards)),
      shard_(config.expertShard),
      local_(config.experts / std::max(1, config.expertShards)) {
  const std::size_t H = hidden_, E = experts_;
  router_ = layout_.add("router.w", E * H, hidden_);
  routerBias_ = layout_.add("router.b", E);
  branches_.reserve(static_cast<std::size_t>(local_));
  for (int e = 0; e < local_; ++e) {
    const int j = shard_ * local_ + e;
    layout_.seedNextAs(2 + kBranchTensors * static_cast<std::size_t>(j));  // as in the full layer
    branches_.emplace_back(layout_, "expert" + std::to_string(j), shards_ * capacity_, hidden_,
                           config.ffnHidden(), gatheredSlot(e) + 1);
  }
}

std::size_t MoeBlock::replicatedParamCount() const {
  return shards_ > 1 ? routerBias_ + static_cast<std::size_t>(experts_) : paramCount();
}

std::vector<std::vector<float>> MoeBlock::allToAll(ActivationStash& st, int phase,
                                                   std::vector<std::vector<float>> parts) const {
  if (shards_ == 1) return parts;
  const ExpertContext& ctx = st.experts();
  if (!ctx.exchange)
    throw kernels::DeviceError("the moe block's experts are sharded over " +
                               std::to_string(shards_) + " replicas but no exchange reaches them");
  std::vector<float> own = parts[static_cast<std::size_t>(shard_)];
  auto got = ctx.exchange->exchange(ctx.key, ctx.layer, phase, std::move(parts));
  got[static_cast<std::size_t>(shard_)] = std::move(own);
  for (std::size_t o = 0; o < got.size(); ++o)
    if (got[o].size() != static_cast<std::size_t>(local_) * block())
      throw kernels::DeviceError("the moe block got " + std::to_string(got[o].size()) +
                                 " floats from expert shard " + std::to_string(o) + ", expected " +
                                 std::to_string(static_cast<std::size_t>(local_) * block()));
  return got;
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
  // Each shard's experts' tokens, C rows per expert (zero rows past its tokens).
  const std::size_t C = block();
  std::vector<std::vector<float>> parts(static_cast<std::size_t>(shards_),
                                        std::vector<float>(static_cast<std::size_t>(local_) * C));
  for (int j = 0; j < experts_; ++j) {
    const auto& rows = routes.tokens[static_cast<std::size_t>(j)];
    float* dst = parts[static_cast<std::size_t>(ownerOf(j))].data() + (j % local_) * C;
    for (std::size_t c = 0; c < rows.size(); ++c)
      std::copy_n(x + static_cast<long>(rows[c]) * hidden_, hidden_, dst + c * hidden_);
  }
  const auto tokensIn = allToAll(st, 0, std::move(parts));
  // Each local expert on its R·C rows, shard by shard; its outputs go back where they came from.
  std::vector<std::vector<float>> back(static_cast<std::size_t>(shards_),
                                       std::vector<float>(static_cast<std::size_t>(local_) * C));
  Tensor branchOut = st.scratch(static_cast<std::size_t>(shards_) * C);
  for (int e = 0; e < local_; ++e) {
    float* gathered = st.allocate(gatheredSlot(e), static_cast<std::size_t>(shards_) * C);
    for (int o = 0; o < shards_; ++o)
      std::copy_n(tokensIn[static_cast<std::size_t>(o)].data() + e * C, C, gathered + o * C);
    branches_[static_cast<std::size_t>(e)].forward(p, gathered, branchOut.data(), st);
    for (int o = 0; o < shards_; ++o)
      std::copy_n(branchOut.data() + o * C, C, back[static_cast<std::size_t>(o)].data() + e * C);
  }
  const auto outputs = allToAll(st, 1, std::move(back));
  k.copy(out, x, 4 * static_cast<std::size_t>(n));  // the residual
  for (int j = 0; j < experts_; ++j) {
    const auto& rows = routes.tokens[static_cast<std::size_t>(j)];
    float* mine = st.allocate(outputSlot(j), C);
    std::copy_n(outputs[static_cast<std::size_t>(ownerOf(j))].data() + (j % local_) * C, C, mine);
    for (std::size_t c = 0; c < rows.size(); ++c) {
      const float gate = probs[static_cast<long>(rows[c]) * experts_ + j];
      float* y = out + static_cast<long>(rows[c]) * hidden_;
      const float* e = mine + c * hidden_;
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
  const float* probs = st.get(kProbs);
  const ExpertRoutes routes = routeTokens(probs, tokens_, experts_, topK_, capacity_);
  std::vector<float> dProbs(static_cast<std::size_t>(tokens_) * experts_, 0.0f);
  // The gradient of each expert's output for this replica's tokens, to the expert's shard.
  const std::size_t C = block();
  std::vector<std::vector<float>> parts(static_cast<std::size_t>(shards_),
                                        std::vector<float>(static_cast<std::size_t>(local_) * C));
  for (int j = 0; j < experts_; ++j) {
    const auto& rows = routes.tokens[static_cast<std::size_t>(j)];
    const float* expertOut = st.get(outputSlot(j));
    float* dst = parts[static_cast<std::size_t>(ownerOf(j))].data() + (j % local_) * C;
    for (std::size_t c = 0; c < rows.size(); ++c) {
      const long t = rows[c];
      const float gate = probs[t * experts_ + j];
      const float* dy = dOut + t * hidden_;
      const float* e = expertOut + c * hidden_;
      double dot = 0;
      for (int h = 0; h < hidden_; ++h) {
        dst[c * hidden_ + h] = gate * dy[h];
        dot += static_cast<double>(dy[h]) * e[h];
      }
      dProbs[static_cast<std::size_t>(t * experts_ + j)] = static_cast<float>(dot);
    }
    st.release(outputSlot(j));
  }
  const auto gradsIn = allToAll(st, 2, std::move(parts));
  std::vector<std::vector<float>> back(static_cast<std::size_t>(shards_),
                                       std::vector<float>(static_cast<std::size_t>(local_) * C));
  Tensor dBranchOut = st.scratch(static_cast<std::size_t>(shards_) * C);
  Tensor dGathered = st.scratch(static_cast<std::size_t>(shards_) * C);
  for (int e = 0; e < local_; ++e) {
    for (int o = 0; o < shards_; ++o)
      std::copy_n(gradsIn[static_cast<std::size_t>(o)].data() + e * C, C,
                  dBranchOut.data() + o * C);
    branches_[static_cast<std::size_t>(e)].backwardInput(
        p, st.get(gatheredSlot(e)), dBranchOut.data(), st, dGathered.data(), false);
    for (int o = 0; o < shards_; ++o)
      std::copy_n(dGathered.data() + o * C, C, back[static_cast<std::size_t>(o)].data() + e * C);
  }
  const auto tokenGrads = allToAll(st, 3, std::move(back));
  k.copy(dIn, dOut, 4 * static_cast<std::size_t>(n));  // the residual
  for (int j = 0; j < experts_; ++j) {
    const auto& rows = routes.tokens[static_cast<std::size_t>(j)];
    const float* src = tokenGrads[static_cast<std::size_t>(ownerOf(j))].data() + (j % local_) * C;
    for (std::size_t c = 0; c < rows.size(); ++c) {
      float* dx = dIn + static_cast<long>(rows[c]) * hidden_;
      for (int h = 0; h < hidden_; ++h)
        dx[h] += src[c * hidden_ + h];
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
  for (int e = 0; e < local_; ++e)
    branches_[static_cast<std::size_t>(e)].backwardWeight(st.get(gatheredSlot(e)), st, g);
  st.clear();
}

std::int64_t MoeBlock::forwardStashBytes() const {
  // x [T×H], the probabilities [T×E], every expert's output for these tokens [C×H]; per local
  // expert the tokens it ran [R·C×H] and its branch.
  const std::int64_t t = tokens_, c = capacity_;
  std::int64_t bytes = 4 * (t * hidden_ + t * experts_ + experts_ * c * hidden_);
  for (const MlpSublayer& e : branches_)
    bytes += 4 * (shards_ * c * hidden_) + e.forwardStashBytes();
  return bytes;
}

std::int64_t MoeBlock::backwardStashBytes() const {
  // After I: x, ∂L/∂logits in place of the probabilities (the outputs freed); per local expert
  // its tokens and its branch's backward stash.
  const std::int64_t t = tokens_, c = capacity_;
  std::int64_t bytes = 4 * (t * hidden_ + t * experts_);
  for (const MlpSublayer& e : branches_)
    bytes += 4 * (shards_ * c * hidden_) + e.backwardStashBytes();
  return bytes;
}

}  // namespace ps::runtime
