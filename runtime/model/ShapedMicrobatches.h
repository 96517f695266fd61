#pragma once
// One stage's micro-batches of their own shapes (StageOptions::tokens, TokenLayout.h: DynaPipe's
// groups, TeraPipe's slices): a layer block per (rows, cols) shape, each micro-batch's piece
// starts, the token-sliced sequences' key/value caches, and the last stage's loss over real
// tokens. StageModel holds one when it runs token layouts and asks it for these. Host memory only
// (StageModel::create checks).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/MaskedAttention.h"
#include "runtime/model/ActivationStash.h"
#include "runtime/model/Layer.h"
#include "runtime/model/MicrobatchKey.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/Tensor.h"
#include "runtime/model/TokenLayout.h"
#include "trace/Result.h"

namespace ps::runtime {

class ShapedMicrobatches {
 public:
  // `layers`: the stage's layer count (one slice cache per layer); `memory`: the stage's.
  ShapedMicrobatches(const ModelConfig& config, std::shared_ptr<const TokenLayouts> tokens,
                     int layers, std::shared_ptr<MemoryCounter> memory);

  const TokenLayouts& layouts() const { return *tokens_; }
  // Floats of the micro-batch's activation: rows·cols·H of its own shape.
  long boundaryElems(MicrobatchKey key) const;
  // The layer block of the micro-batch's shape.
  const Layer& block(MicrobatchKey key) const;

  // F: the micro-batch's per-layer contexts into `contexts` (one per stash, each stash pointed
  // at its own), opening its sequence's slice cache on its first slice. `what` names the pass in
  // errors (a micro-batch the layouts lack, a slice past the sequence, a cache opened twice, or
  // a slice without its open cache).
  [[nodiscard]] Status attach(MicrobatchKey key, std::vector<ActivationStash>& stashes,
                              std::vector<TokenContext>& contexts, const std::string& what);
  // Inference has no backward: the sequence's last slice closes its cache after its F.
  void closeAfterForward(MicrobatchKey key);
  // A sequence's first slice runs its last backward: its keys and values are no longer needed.
  void closeAfterBackwardInput(MicrobatchKey key);

  // The last stage's loss of the micro-batch: the mean over its real tokens (padding out),
  // weighted by its share of the step's tokens times `microbatchesPerStep`. Unless `dLoss` is
  // null it is made the loss's gradient (zeroed first: padding gets no gradient).
  double loss(MicrobatchKey key, const float* out, int microbatchesPerStep, Tensor* dLoss) const;

 private:
  // A token-sliced sequence's keys and values on one layer, from its first slice's F until that
  // slice's I (the last backward of the sequence).
  struct SliceCache {
    Tensor k, v, dk, dv;
    kernels::AttentionPrefix view;
  };
  const MicrobatchTokens& of(MicrobatchKey key) const {
    return tokens_->microbatches[static_cast<std::size_t>(key.microbatch)];
  }

  ModelConfig config_;
  std::shared_ptr<const TokenLayouts> tokens_;
  int layers_;
  std::shared_ptr<MemoryCounter> memory_;
  std::vector<std::vector<int>> pieceStarts_;                     // per micro-batch of tokens_
  std::map<std::pair<int, int>, std::unique_ptr<Layer>> blocks_;  // (rows, cols)
  std::map<MicrobatchKey, std::vector<SliceCache>> sliceCaches_;  // (step, first slice)
};

}  // namespace ps::runtime
