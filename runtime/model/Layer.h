#pragma once
// One block of the layered model, for one micro-batch at a time. A Layer is stateless (shapes and
// parameter layout only): weights come in as a flat buffer, so any weight version can be used,
// and everything a micro-batch needs between passes lives in its ActivationStash.
//
// Pass order per micro-batch: forward → backwardInput (I) → backwardWeight (W). I gives the
// input gradient at once (it unblocks the previous stage) and stashes what W needs; W may run
// any time later and ADDS into the gradient buffer, so gradients accumulate over micro-batches.
// Buffers: in/out/dOut/dIn are activationElems() floats and must not alias each other.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/model/ActivationStash.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/ParamLayout.h"

namespace ps::runtime {

class Layer {
 public:
  virtual ~Layer() = default;

  const ParamLayout& layout() const { return layout_; }
  std::size_t paramCount() const { return layout_.size(); }

  // Deterministic initial weights from `seed` (already specific to this layer's index).
  void initParams(float* params, std::uint64_t seed) const;

  virtual void forward(const float* params, const float* in, float* out,
                       ActivationStash& stash) const = 0;
  virtual void backwardInput(const float* params, const float* dOut, ActivationStash& stash,
                             float* dIn) const = 0;
  virtual void backwardWeight(ActivationStash& stash, float* grads) const = 0;

  // Leading parameters every replica's copy of this layer holds alike (their gradients are
  // summed over the replicas); the rest are the copy's own (a shard of MoE experts).
  virtual std::size_t replicatedParamCount() const { return paramCount(); }

  // Bytes a micro-batch's stash holds after F, and at most between I and W.
  virtual std::int64_t forwardStashBytes() const = 0;
  virtual std::int64_t backwardStashBytes() const = 0;

 protected:
  explicit Layer(const ModelConfig& config) : config_(config) {}

  ModelConfig config_;
  ParamLayout layout_;  // filled by the subclass constructor
};

// The block of `config.block` type (the same for every layer index).
std::unique_ptr<Layer> makeLayer(const ModelConfig& config);

}  // namespace ps::runtime
