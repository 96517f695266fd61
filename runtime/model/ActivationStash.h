#pragma once
// What one layer keeps for one micro-batch between its F, I and W: numbered tensor slots whose
// meaning the layer defines (slot kInputSlot is always the layer's input, which recompute
// restarts from). F fills slots, I adds the gradients W will need and frees what W does not,
// W frees the rest, so the counter shows activation memory rise and fall as it really does.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/model/ExpertExchange.h"
#include "runtime/model/GraphContext.h"
#include "runtime/model/MemoryCounter.h"
#include "runtime/model/Tensor.h"

namespace ps::runtime {

struct TokenContext;

class ActivationStash {
 public:
  static constexpr int kInputSlot = 0;

  // `counter` names the device the stash's tensors live on; null = the host, uncounted.
  explicit ActivationStash(std::shared_ptr<MemoryCounter> counter);

  // Where the slots live and where the layer's math runs.
  kernels::ComputeDevice& device() const {
    return counter_ ? counter_->device() : kernels::hostDevice();
  }

  // A zeroed tensor of `elems` floats in `slot` (replacing what was there).
  float* allocate(int slot, std::size_t elems);
  float* copyIn(int slot, const float* src, std::size_t elems);
  float* get(int slot);
  const float* get(int slot) const;
  bool has(int slot) const;
  void release(int slot);
  // Moves a slot's tensor out (the slot becomes empty).
  Tensor take(int slot);
  // Puts a tensor (e.g. one taken before) into `slot`.
  void put(int slot, Tensor tensor);
  void clear();
  // Copies every slot into tensors counted by `counter` (on the same device) and frees the old
  // ones; later allocations count there too. BPipe's OFFLOAD and RELOAD between ranks' memory.
  // Returns the bytes moved.
  std::int64_t moveTo(std::shared_ptr<MemoryCounter> counter);

  std::int64_t bytes() const;
  // A micro-batch of a TokenLayouts (variable shapes, packed rows, token slices): how its
  // attention is masked. Null for the model's uniform micro-batches. Not owned.
  void setTokens(const TokenContext* tokens) { tokens_ = tokens; }
  const TokenContext* tokens() const { return tokens_; }
  // A layer of MoE experts sharded over replicas: how it reaches the other shards (null: all its
  // experts are here).
  void setExperts(const ExpertContext& experts) { experts_ = experts; }
  const ExpertContext& experts() const { return experts_; }
  // A GNN layer: its graph, chunk and historical embeddings (none: the layer sees no edges).
  void setGraph(const GraphContext& graph) { graph_ = graph; }
  const GraphContext& graph() const { return graph_; }
  // A counted scratch tensor that is not kept in the stash.
  Tensor scratch(std::size_t elems) const { return Tensor(counter_, elems); }

 private:
  std::shared_ptr<MemoryCounter> counter_;
  std::vector<Tensor> slots_;
  const TokenContext* tokens_ = nullptr;
  ExpertContext experts_;
  GraphContext graph_;
};

}  // namespace ps::runtime
