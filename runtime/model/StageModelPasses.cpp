// StageModel's F, I, W and recompute passes over its layers for one micro-batch.
#include <string>
#include <vector>

#include "runtime/model/StageModel.h"

namespace ps::runtime {
namespace {

// Fills a counted tensor from a host generator: in place on the host, through a staging buffer
// on any other device (the synthetic data is always made on the host: the same numbers
// everywhere).
template <typename Generate>
void fillFromHost(Tensor& t, Generate&& generate) {
  if (t.device().isHost()) {
    generate(t.data());
    return;
  }
  std::vector<float> host(t.size());
  generate(host.data());
  t.device().upload(t.data(), host.data(), host.size() * sizeof(float));
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
  f.stashes.reserve(last_ - first_ + 1);
  for (int i = first_; i <= last_; ++i)
    f.stashes.emplace_back(memory_);
  if (tokens_) PS_TRY(attachTokens(key, f));
  Tensor input;
  if (isFirst() && in == nullptr) {  // the first stage makes its own input: the same on every rank
    input = newBoundaryTensor(key);
    fillFromHost(input, [&](float* dst) {
      if (tokens_)
        fillTokens(config_, *tokens_, key, false, dst);
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
    if (tokens_) closeSliceCacheAfterForward(key);
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

Status StageModel::attachTokens(MicrobatchKey key, InFlight& f) {
  const auto count = static_cast<int>(tokens_->microbatches.size());
  if (key.microbatch < 0 || key.microbatch >= count)
    return Error{describe(key, first_, last_, "F") + ": the token layouts describe " +
                 std::to_string(count) + " micro-batches"};
  const MicrobatchTokens& mb = tokens_->microbatches[static_cast<std::size_t>(key.microbatch)];
  std::vector<SliceCache>* cache = nullptr;
  if (mb.firstSlice >= 0) {
    const MicrobatchKey first{key.step, mb.firstSlice};
    if (mb.prefix + mb.cols > config_.seq)
      return Error{describe(key, first_, last_, "F") + ": a slice of tokens [" +
                   std::to_string(mb.prefix) + ", " + std::to_string(mb.prefix + mb.cols) +
                   ") of a " + std::to_string(config_.seq) + "-token sequence"};
    if (key.microbatch == mb.firstSlice) {
      auto [it, made] = sliceCaches_.try_emplace(first);
      if (!made) return Error{describe(key, first_, last_, "F") + " opened its slice cache twice"};
      const std::size_t elems = static_cast<std::size_t>(mb.numRows()) *
                                static_cast<std::size_t>(config_.seq) *
                                static_cast<std::size_t>(config_.hidden);
      it->second.resize(static_cast<std::size_t>(last_ - first_ + 1));
      for (SliceCache& c : it->second) {
        c.k = Tensor(memory_, elems);
        c.v = Tensor(memory_, elems);
        c.dk = Tensor(memory_, elems);
        c.dv = Tensor(memory_, elems);
        c.view = {c.k.data(), c.v.data(), c.dk.data(), c.dv.data(), config_.seq};
      }
    }
    const auto it = sliceCaches_.find(first);
    if (it == sliceCaches_.end())
      return Error{describe(key, first_, last_, "F") + " runs before its sequence's first slice (" +
                   std::to_string(mb.firstSlice) + ") or after its backward"};
    cache = &it->second;
  }
  const std::size_t layers = f.stashes.size();
  f.tokens.resize(layers);
  for (std::size_t i = 0; i < layers; ++i) {
    f.tokens[i] = {mb.numRows(), mb.cols, mb.prefix,
                   pieceStarts_[static_cast<std::size_t>(key.microbatch)].data(),
                   cache ? &(*cache)[i].view : nullptr};
    f.stashes[i].setTokens(&f.tokens[i]);
  }
  return {};
}

void StageModel::closeSliceCacheAfterForward(MicrobatchKey key) {
  // Inference has no backward: the sequence's last slice closes its cache.
  const MicrobatchTokens& mb = tokens_->microbatches[static_cast<std::size_t>(key.microbatch)];
  if (mb.firstSlice >= 0 && mb.prefix + mb.cols == config_.seq)
    sliceCaches_.erase({key.step, mb.firstSlice});
}

void StageModel::computeTokenLoss(MicrobatchKey key, InFlight& f, const float* out) {
  // Host memory (checked at create): the mean over the micro-batch's real tokens, padding out.
  const MicrobatchTokens& mb = tokens_->microbatches[static_cast<std::size_t>(key.microbatch)];
  Tensor target = newBoundaryTensor(key);
  fillTokens(config_, *tokens_, key, true, target.data());
  const long H = config_.hidden;
  const double real = static_cast<double>(mb.realTokens()) * static_cast<double>(H);
  const auto forEachReal = [&](auto&& visit) {
    for (int r = 0; r < mb.numRows(); ++r) {
      long cols = 0;
      for (const TokenPiece& p : mb.rows[static_cast<std::size_t>(r)])
        cols += p.count;
      const long begin = static_cast<long>(r) * mb.cols * H;
      for (long i = begin; i < begin + cols * H; ++i)
        visit(i);
    }
  };
  double sum = 0;
  forEachReal([&](long i) {
    const double d = static_cast<double>(out[i]) - target.data()[i];
    sum += d * d;
  });
  pendingLosses_.erase(key);
  losses_[key] = sum / real * mb.lossWeight * microbatchesPerStep_;
  if (inference_) return;
  f.dLoss = newBoundaryTensor(key);  // zeroed: padding gets no gradient
  const auto scale = static_cast<float>(2.0 * mb.lossWeight / real);
  float* dLoss = f.dLoss.data();
  forEachReal([&](long i) { dLoss[i] = scale * (out[i] - target.data()[i]); });
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
  // A sequence's first slice runs its last backward: its keys and values are no longer needed.
  if (tokens_ &&
      tokens_->microbatches[static_cast<std::size_t>(key.microbatch)].firstSlice == key.microbatch)
    sliceCaches_.erase(key);
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
