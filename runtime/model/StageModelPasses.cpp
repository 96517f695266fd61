// StageModel's F, I, W and recompute passes over its layers for one micro-batch.
#include <string>
#include <vector>

#include "runtime/model/StageModel.h"

namespace ps::runtime {
namespace {

// Fills a counted tensor from a host generator: in place on the host, through a staging buffer
// on any other device (the synthetic data is always made on the host: the same numbers
// everywhere).
void uploadBatch(Tensor& t, const std::vector<float>& host) {
  t.device().upload(t.data(), host.data(), host.size() * sizeof(float));
}

template <typename Generate>
void fillFromHost(Tensor& t, Generate&& generate) {
  if (t.device().isHost()) {
    generate(t.data());
    return;
  }
  std::vector<float> host(t.size());
  generate(host.data());
  uploadBatch(t, host);
}

std::string describe(MicrobatchKey key, int first, int last, const char* pass) {
  return std::string(pass) + " of micro-batch " + std::to_string(key.microbatch) + " (step " +
         std::to_string(key.step) + ") on the stage of layers " + std::to_string(first) + "-" +
         std::to_string(last);
}

}  // namespace

Status StageModel::forward(MicrobatchKey key, const float* in, float* out,
                           std::shared_ptr<const ParamVersion> version, bool forwardOnlyVersion) {
  if (inFlight_.contains(key)) return Error{describe(key, first_, last_, "F") + " ran twice"};
  if (!isFirst() && in == nullptr) {
    return Error{describe(key, first_, last_, "F") + " has no input"};
  }
  if (!isLast() && out == nullptr) {
    return Error{describe(key, first_, last_, "F") + " has no output buffer"};
  }
  if (version && version->size() != params_.size()) {
    return Error{describe(key, first_, last_, "F") + " got a weight version of another stage"};
  }
  InFlight f;
  f.version = std::move(version);
  f.forwardVersion = version_;
  f.stashes.reserve(last_ - first_ + 1);
  for (int i = first_; i <= last_; ++i) {
    f.stashes.emplace_back(memory_);
    if (experts_) f.stashes.back().setExperts({experts_, key, i});
    if (graph_)
      f.stashes.back().setGraph({graph_.get(), history_[i - first_].data(), key.microbatch});
  }
  if (tokens_) PS_TRY(tokens_->attach(key, f.stashes, f.tokens, describe(key, first_, last_, "F")));
  Tensor input;
  if (isFirst() && in == nullptr) {  // the first stage makes its own input: the same on every rank
    input = newBoundaryTensor(key);
    if (inputs_)
      uploadBatch(input, inputs_->take(key));
    else
      fillFromHost(input, [&](float* dst) {
        if (tokens_)
          fillTokens(config_, tokens_->layouts(), key, false, dst);
        else
          data_.input(key, dst);
      });
    in = input.data();
  }
  if (!isLast()) {
    runLayers(f, key, in, out);
  } else {
    Tensor result = newBoundaryTensor(key);
    runLayers(f, key, in, result.data());
    if (tokens_)
      computeTokenLoss(key, f, result.data());
    else
      computeLoss(key, f, result.data());
    if (out != nullptr) device().copy(out, result.data(), static_cast<std::size_t>(result.bytes()));
  }
  if (inference_) {  // nothing waits for the stash: it is freed here
    if (tokens_) tokens_->closeAfterForward(key);
    return {};
  }
  if (forwardOnlyVersion) f.version.reset();  // freed now: the backward takes the live weights
  inFlight_.emplace(key, std::move(f));
  return {};
}

void StageModel::runLayers(InFlight& f, MicrobatchKey key, const float* in, float* out) {
  const float* weights = weightsFor(f);
  const int count = last_ - first_ + 1;
  const Layer& block = blockFor(key);
  Tensor ping = count > 1 ? newBoundaryTensor(key) : Tensor();
  Tensor pong = count > 2 ? newBoundaryTensor(key) : Tensor();
  const float* cur = in;
  for (int i = 0; i < count; ++i) {
    float* dst = i == count - 1 ? out : (i % 2 == 0 ? ping.data() : pong.data());
    block.forward(weights + layerOffset(first_ + i), cur, dst, f.stashes[i]);
    cur = dst;
  }
}

void StageModel::computeLoss(MicrobatchKey key, InFlight& f, const float* out) {
  Tensor target = newBoundaryTensor();
  if (targets_)
    uploadBatch(target, targets_->take(key));
  else
    fillFromHost(target, [&](float* dst) { data_.target(key, dst); });
  Tensor loss = Tensor::uncounted(device(), 2);  // one double
  lossHead_.forward(device(), out, target.data(), reinterpret_cast<double*>(loss.data()));
  losses_.erase(key);
  pendingLosses_.insert_or_assign(key, std::move(loss));
  if (inference_) return;
  f.dLoss = newBoundaryTensor();
  lossHead_.backward(device(), out, target.data(), f.dLoss.data(),
                     1.0f / static_cast<float>(microbatchesPerStep_));
}

void StageModel::computeTokenLoss(MicrobatchKey key, InFlight& f, const float* out) {
  // Host memory (checked at create): the mean over the micro-batch's real tokens, padding out.
  const double loss =
      tokens_->loss(key, out, microbatchesPerStep_, inference_ ? nullptr : &f.dLoss);
  pendingLosses_.erase(key);
  losses_[key] = loss;
}

Result<StageModel::InFlight*> StageModel::find(MicrobatchKey key, Phase expected,
                                               const char* pass) {
  const auto it = inFlight_.find(key);
  const std::string what = describe(key, first_, last_, pass);
  if (it == inFlight_.end()) return Error{what + " has no stash: its F has not run (or W ran)"};
  const Phase phase = it->second.phase;
  if (phase == expected) return &it->second;
  if (phase == Phase::Dropped) return Error{what + " needs its activations: recompute first"};
  if (phase == Phase::InputDone) return Error{what + " comes after I already ran"};
  return Error{what + " needs I to run first"};
}

Status StageModel::backwardInput(MicrobatchKey key, const float* dOut, float* dIn) {
  auto found = find(key, Phase::Forwarded, "I");
  if (!found) return std::move(found).takeError();
  InFlight& f = **found;
  if (isLast() != (dOut == nullptr)) {
    return Error{describe(key, first_, last_, "I") +
                 (isLast() ? ": the last stage takes its output gradient from the loss"
                           : " has no output gradient")};
  }
  const float* weights = weightsFor(f);
  const int count = last_ - first_ + 1;
  const Layer& block = blockFor(key);
  Tensor ping = newBoundaryTensor(key);
  Tensor pong = count > 1 ? newBoundaryTensor(key) : Tensor();
  const float* cur = isLast() ? f.dLoss.data() : dOut;
  for (int i = count - 1; i >= 0; --i) {
    float* dst = (i == 0 && dIn != nullptr) ? dIn : (i % 2 == 0 ? ping.data() : pong.data());
    block.backwardInput(weights + layerOffset(first_ + i), cur, f.stashes[i], dst);
    cur = dst;
  }
  f.dLoss.reset();
  f.phase = Phase::InputDone;
  if (tokens_) tokens_->closeAfterBackwardInput(key);
  return {};
}

Status StageModel::backwardWeight(MicrobatchKey key) {
  auto found = find(key, Phase::InputDone, "W");
  if (!found) return std::move(found).takeError();
  InFlight& f = **found;
  const Layer& block = blockFor(key);
  for (int i = 0; i <= last_ - first_; ++i) {
    block.backwardWeight(f.stashes[i], grads_.data() + layerOffset(first_ + i));
  }
  inFlight_.erase(key);
  return {};
}

Status StageModel::backward(MicrobatchKey key, const float* dOut, float* dIn) {
  PS_TRY(backwardInput(key, dOut, dIn));
  return backwardWeight(key);
}

Status StageModel::dropActivations(MicrobatchKey key) {
  auto found = find(key, Phase::Forwarded, "dropping activations");
  if (!found) return std::move(found).takeError();
  InFlight& f = **found;
  // Only the stage input is kept: recompute replays every layer from it.
  Tensor input = f.stashes.front().take(ActivationStash::kInputSlot);
  for (ActivationStash& s : f.stashes)
    s.clear();
  f.stashes.front().put(ActivationStash::kInputSlot, std::move(input));
  f.phase = Phase::Dropped;
  return {};
}

Status StageModel::recompute(MicrobatchKey key) {
  auto found = find(key, Phase::Dropped, "recompute");
  if (!found) return std::move(found).takeError();
  InFlight& f = **found;
  const Tensor input = f.stashes.front().take(ActivationStash::kInputSlot);
  Tensor out = newBoundaryTensor(key);  // the stage output is not needed again (dLoss is kept)
  runLayers(f, key, input.data(), out.data());
  f.phase = Phase::Forwarded;
  return {};
}

Result<std::int64_t> StageModel::moveActivations(MicrobatchKey key,
                                                 const std::shared_ptr<MemoryCounter>& to) {
  auto found = find(key, Phase::Forwarded, "moving activations");
  if (!found) return std::move(found).takeError();
  InFlight& f = **found;
  std::int64_t moved = 0;
  for (ActivationStash& s : f.stashes)
    moved += s.moveTo(to);
  if (!f.dLoss.empty()) {
    Tensor copy(to, f.dLoss.size());
    copy.device().copy(copy.data(), f.dLoss.data(), static_cast<std::size_t>(f.dLoss.bytes()));
    moved += f.dLoss.bytes();
    f.dLoss = std::move(copy);
  }
  return moved;
}

}  // namespace ps::runtime
