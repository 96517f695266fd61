// ShapedMicrobatches (ShapedMicrobatches.h): shapes, slice caches and the token loss of one
// stage's micro-batches of their own shapes.
#include "runtime/model/ShapedMicrobatches.h"

namespace ps::runtime {

ShapedMicrobatches::ShapedMicrobatches(const ModelConfig& config,
                                       std::shared_ptr<const TokenLayouts> tokens, int layers,
                                       std::shared_ptr<MemoryCounter> memory)
    : config_(config), tokens_(std::move(tokens)), layers_(layers), memory_(std::move(memory)) {
  for (const MicrobatchTokens& mb : tokens_->microbatches) {
    pieceStarts_.push_back(mb.pieceStarts());
    auto& block = blocks_[{mb.numRows(), mb.cols}];
    if (block) continue;
    ModelConfig shape = config_;
    shape.microbatchSize = mb.numRows();
    shape.seq = mb.cols;
    block = makeLayer(shape);
  }
}

long ShapedMicrobatches::boundaryElems(MicrobatchKey key) const {
  const MicrobatchTokens& mb = tokens_->microbatches.at(static_cast<std::size_t>(key.microbatch));
  return static_cast<long>(mb.numRows()) * mb.cols * config_.hidden;
}

const Layer& ShapedMicrobatches::block(MicrobatchKey key) const {
  const MicrobatchTokens& mb = tokens_->microbatches.at(static_cast<std::size_t>(key.microbatch));
  return *blocks_.at({mb.numRows(), mb.cols});
}

Status ShapedMicrobatches::attach(MicrobatchKey key, std::vector<ActivationStash>& stashes,
                                  std::vector<TokenContext>& contexts, const std::string& what) {
  const auto count = static_cast<int>(tokens_->microbatches.size());
  if (key.microbatch < 0 || key.microbatch >= count)
    return Error{what + ": the token layouts describe " + std::to_string(count) + " micro-batches"};
  const MicrobatchTokens& mb = of(key);
  std::vector<SliceCache>* cache = nullptr;
  if (mb.firstSlice >= 0) {
    const MicrobatchKey first{key.step, mb.firstSlice};
    if (mb.prefix + mb.cols > config_.seq)
      return Error{what + ": a slice of tokens [" + std::to_string(mb.prefix) + ", " +
                   std::to_string(mb.prefix + mb.cols) + ") of a " + std::to_string(config_.seq) +
                   "-token sequence"};
    if (key.microbatch == mb.firstSlice) {
      auto [it, made] = sliceCaches_.try_emplace(first);
      if (!made) return Error{what + " opened its slice cache twice"};
      const std::size_t elems = static_cast<std::size_t>(mb.numRows()) *
                                static_cast<std::size_t>(config_.seq) *
                                static_cast<std::size_t>(config_.hidden);
      it->second.resize(static_cast<std::size_t>(layers_));
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
      return Error{what + " runs before its sequence's first slice (" +
                   std::to_string(mb.firstSlice) + ") or after its backward"};
    cache = &it->second;
  }
  const std::size_t layers = stashes.size();
  contexts.resize(layers);
  for (std::size_t i = 0; i < layers; ++i) {
    contexts[i] = {mb.numRows(), mb.cols, mb.prefix,
                   pieceStarts_[static_cast<std::size_t>(key.microbatch)].data(),
                   cache ? &(*cache)[i].view : nullptr};
    stashes[i].setTokens(&contexts[i]);
  }
  return {};
}

void ShapedMicrobatches::closeAfterForward(MicrobatchKey key) {
  const MicrobatchTokens& mb = of(key);
  if (mb.firstSlice >= 0 && mb.prefix + mb.cols == config_.seq)
    sliceCaches_.erase({key.step, mb.firstSlice});
}

void ShapedMicrobatches::closeAfterBackwardInput(MicrobatchKey key) {
  if (of(key).firstSlice == key.microbatch) sliceCaches_.erase(key);
}

double ShapedMicrobatches::loss(MicrobatchKey key, const float* out, int microbatchesPerStep,
                                Tensor* dLoss) const {
  const MicrobatchTokens& mb = of(key);
  Tensor target(memory_, boundaryElems(key));
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
  const double loss = sum / real * mb.lossWeight * microbatchesPerStep;
  if (!dLoss) return loss;
  *dLoss = Tensor(memory_, boundaryElems(key));  // zeroed: padding gets no gradient
  const auto scale = static_cast<float>(2.0 * mb.lossWeight / real);
  float* d = dLoss->data();
  forEachReal([&](long i) { d[i] = scale * (out[i] - target.data()[i]); });
  return loss;
}

}  // namespace ps::runtime
