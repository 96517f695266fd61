#pragma once
// One pipeline stage of the layered model: the contiguous layers [firstLayer, lastLayer], plus the
// synthetic input when it holds layer 0 and the loss head when it holds the last layer. This is
// what an executor rank calls for each op of its program:
//   F  forward(key, in, out[, version])   in: previous stage's output (ignored on the first
//                                         stage, which makes its own input); out: this stage's
//                                         output (optional on the last stage, which records the
//                                         loss and its gradient instead)
//   I  backwardInput(key, dOut, dIn)      dOut: nullptr on the last stage (its loss gives it);
//                                         dIn: may be nullptr on the first stage
//   W  backwardWeight(key)                adds the micro-batch's weight gradients to gradients()
//   B  backward(key, dOut, dIn)           I then W
//   R  dropActivations(key) after F, recompute(key) before I (activation recomputation)
//   OPT optimizerStep()
// Each micro-batch's stash lives here from F until W, keyed by (step, micro-batch). Passes are
// checked: F twice, I before F, W before I, etc. return an error naming the micro-batch.
// Not thread-safe: one rank's thread drives a stage (several stages may share a MemoryCounter).
// Tensors live on the MemoryCounter's device (StageOptions::memory): the host for the cpu
// backend, a GPU for the cuda backend; the in/out/dOut/dIn pointers are that device's memory.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "runtime/model/ActivationStash.h"
#include "runtime/model/ChunkGraph.h"
#include "runtime/model/HostBatches.h"
#include "runtime/model/Layer.h"
#include "runtime/model/LossHead.h"
#include "runtime/model/MicrobatchKey.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/Optimizer.h"
#include "runtime/model/ParamVersion.h"
#include "runtime/model/ShapedMicrobatches.h"
#include "runtime/model/SyntheticData.h"
#include "runtime/model/Tensor.h"
#include "runtime/model/TokenLayout.h"
#include "trace/Result.h"

namespace ps::runtime {

struct StageOptions {
  int firstLayer = 0;
  int lastLayer = -1;  // inclusive; −1 = the model's last layer
  // The loss gradient is scaled by 1/microbatchesPerStep, so a step's accumulated gradient is
  // that of the mean loss over its micro-batches.
  int microbatchesPerStep = 1;
  OptimizerConfig optimizer;
  std::shared_ptr<MemoryCounter> memory;  // shared by a rank's stages; null = a new host counter
  // Inference (forward-only plans): weights only, no gradients or optimizer state, and F keeps
  // no stash (the loss is still computed on the last stage).
  bool inference = false;
  // A source of a stage DAG (GraphPipe) that does not hold layer 0: it reads the micro-batch's
  // input itself, as the first stage does (each branch of the model sees the same input).
  bool source = false;
  // Micro-batches of their own shapes (DynaPipe's groups, TeraPipe's slices), indexed by plan
  // micro-batch; null = every micro-batch is the config's B×S. Host devices only.
  std::shared_ptr<const TokenLayouts> tokens;
};

class StageModel {
 public:
  // Errors: invalid model or optimizer config, an empty or out-of-range layer range.
  [[nodiscard]] static Result<std::unique_ptr<StageModel>> create(const ModelConfig& config,
                                                                  const StageOptions& options);

  // --- shape and sizes
  const ModelConfig& config() const { return config_; }
  int firstLayer() const { return first_; }
  int lastLayer() const { return last_; }
  bool isFirst() const { return first_ == 0 || source_; }
  bool isLast() const { return last_ == config_.layers - 1; }
  // Makes key's synthetic input and target ready (off the host device they are made ahead on
  // helper threads), so that timing its F times the pass, not the data (calibration).
  void prepareBatches(MicrobatchKey key);
  // Floats (bytes) of one micro-batch's activation or gradient sent between stages: B·S·H.
  long boundaryElems() const { return config_.activationElems(); }
  std::int64_t boundaryBytes() const { return 4 * boundaryElems(); }
  // A counted buffer of boundaryElems() floats, for the executor's send/receive tensors.
  Tensor newBoundaryTensor() const { return Tensor(memory_, boundaryElems()); }
  // The same for one micro-batch: its own shape's under StageOptions::tokens.
  long boundaryElems(MicrobatchKey key) const;
  Tensor newBoundaryTensor(MicrobatchKey key) const { return Tensor(memory_, boundaryElems(key)); }
  std::size_t paramCount() const { return params_.size(); }
  std::int64_t paramBytes() const { return params_.bytes(); }
  // Offset of layer `layer`'s weights inside parameters() (layers are stored in order).
  std::size_t layerOffset(int layer) const;
  // Stash bytes one micro-batch holds from F until I, and from I until W.
  std::int64_t activationBytesPerMicrobatch() const;
  std::int64_t backwardStashBytesPerMicrobatch() const;

  // --- passes (see the header comment)
  // `in`: the stage's input; a first stage given none makes the micro-batch's own (given one: a
  // frozen encoder's output, DiffusionPipe). `version`: the weights F runs on (null = the live
  // ones); kept for the micro-batch's backward
  // unless `forwardOnlyVersion` (XPipe: the backward takes the live weights).
  [[nodiscard]] Status forward(MicrobatchKey key, const float* in, float* out,
                               std::shared_ptr<const ParamVersion> version = nullptr,
                               bool forwardOnlyVersion = false);
  [[nodiscard]] Status backwardInput(MicrobatchKey key, const float* dOut, float* dIn);
  [[nodiscard]] Status backwardWeight(MicrobatchKey key);
  [[nodiscard]] Status backward(MicrobatchKey key, const float* dOut, float* dIn);
  [[nodiscard]] Status dropActivations(MicrobatchKey key);
  [[nodiscard]] Status recompute(MicrobatchKey key);
  // BPipe: moves the micro-batch's stash (kept from F until its backward) into memory counted by
  // `to` (another rank's, the same device), or back with memory(); the bytes moved.
  [[nodiscard]] Result<std::int64_t> moveActivations(MicrobatchKey key,
                                                     const std::shared_ptr<MemoryCounter>& to);
  int inFlight() const { return static_cast<int>(inFlight_.size()); }
  // GNNPipe's history refresh (Plan::historyRefresh), a forward-only pass over the whole graph
  // on the live weights: layer after layer, every node's input is written to the layer's history
  // before any chunk's output is computed, so each layer aggregates current neighbours only.
  // `in` is every node's input to the stage (nodes × H, chunk after chunk; the first stage makes
  // its own from the step's data when null); `out`, if any, gets every node's output.
  [[nodiscard]] Status refreshHistory(int step, const float* in, float* out);
  bool hasGraph() const { return graph_ != nullptr; }
  // Floats in every node's embedding (refreshHistory's input and output).
  long graphElems() const;

  // --- loss (last stage): computed by forward on the device, read back on first ask. Under
  // StageOptions::tokens a micro-batch's loss is scaled by its share of the step's real tokens
  // times the step's micro-batches, so that the plain mean over them is the step's token mean.
  std::optional<double> loss(MicrobatchKey key) const;
  // loss(), for a micro-batch whose forward is known to have finished on the device: read
  // without waiting for the rest of the device's queue (ComputeDevice::readBack).
  std::optional<double> finishedLoss(MicrobatchKey key) const;
  // Mean over the step's recorded micro-batches.
  std::optional<double> stepLoss(int step) const;

  // --- weights (the spans are device memory: host devices only may read them directly; the
  // copies work on any device)
  std::span<float> parameters() { return params_.span(); }
  std::span<const float> parameters() const { return params_.span(); }
  std::span<float> gradients() { return grads_.span(); }
  std::span<const float> gradients() const { return grads_.span(); }
  std::vector<float> copyParameters() const;
  std::vector<float> copyGradients() const;
  kernels::ComputeDevice& device() const { return memory_->device(); }
  void zeroGradients();
  // Updates the live weights from the accumulated gradients, zeroes them, and counts a version.
  void optimizerStep();
  int version() const { return version_; }
  // A copy of the live weights, tagged with version().
  std::shared_ptr<const ParamVersion> snapshot() const;
  // XPipe: the weights predicted for `updates` optimizer steps from now (Optimizer::predict),
  // tagged with version() + updates.
  std::shared_ptr<const ParamVersion> predictedSnapshot(int updates) const;
  // LayerPipe2: keep a moving average ē of the optimizer's updates (ē = β·ē + (1 − β)·u after
  // each step; one copy of the weights, counted), from now on.
  void averageUpdates(float beta);
  // LayerPipe2: the weights key's forward ran on, rebuilt as W − k·ē for the k updates since,
  // for its backward (a counted copy until its W; nothing when k = 0).
  [[nodiscard]] Status rebuildForwardWeights(MicrobatchKey key);
  // I-TiMePReSt (WeightVersioning::Blended): the backward of `key` runs on an intermediate of its
  // forward's stashed weights and the live ones, W + e^(−decay·d)·(W_stash − W) after d updates:
  // the stale weights count for less the staler they are (decay 0: the stash; large: the live).
  [[nodiscard]] Status blendStashWithLive(MicrobatchKey key, float decay);
  // The version an in-flight micro-batch runs with: the ParamVersion's number, −1 for the live
  // weights (whatever they are when each pass runs); nullopt if it is not in flight.
  std::optional<int> versionUsed(MicrobatchKey key) const;

  const std::shared_ptr<MemoryCounter>& memory() const { return memory_; }
  // Expert parallelism (ModelConfig::expertShards > 1): how this copy's MoE layers reach the
  // other replicas' experts (set before the first F; not owned).
  void setExpertExchange(ExpertExchange* exchange) { experts_ = exchange; }
  // Leading floats of each layer's parameters that every replica's copy holds alike.
  std::size_t replicatedPerLayer() const { return block_->replicatedParamCount(); }
  // Calls visit(layer, offset, count) for each run of the floats of layers [first, last] that
  // every replica's copy holds alike: one run over them all, or each layer's replicated part
  // where a layer keeps some of its own (a shard of MoE experts).
  template <class Visit>
  void forEachReplicatedRun(int first, int last, Visit visit) const {
    const std::size_t shared = replicatedPerLayer();
    if (shared == block_->paramCount())
      return visit(first, layerOffset(first), layerOffset(last + 1) - layerOffset(first));
    for (int layer = first; layer <= last; ++layer)
      visit(layer, layerOffset(layer), shared);
  }

 private:
  enum class Phase { Forwarded, Dropped, InputDone };
  struct InFlight {
    std::vector<ActivationStash> stashes;  // one per layer
    std::shared_ptr<const ParamVersion> version;
    Tensor dLoss;  // last stage: ∂loss/∂output, from F until I
    Phase phase = Phase::Forwarded;
    std::vector<TokenContext> tokens;  // per layer, under StageOptions::tokens
    int forwardVersion = 0;            // version() when F ran
  };

  StageModel(const ModelConfig& config, const StageOptions& options);
  const float* weightsFor(const InFlight& f) const;
  [[nodiscard]] Result<InFlight*> find(MicrobatchKey key, Phase expected, const char* pass);
  void runLayers(InFlight& f, MicrobatchKey key, const float* in, float* out);
  const Layer& blockFor(MicrobatchKey key) const;
  void computeTokenLoss(MicrobatchKey key, InFlight& f, const float* out);
  void computeLoss(MicrobatchKey key, InFlight& f, const float* out);
  // Reads the losses still on the device into losses_.
  void collectLosses() const;

  ModelConfig config_;
  int first_;
  int last_;
  int microbatchesPerStep_;
  bool inference_;
  bool source_;
  std::shared_ptr<MemoryCounter> memory_;
  std::unique_ptr<Layer> block_;  // stateless and the same for every layer index
  SyntheticData data_;
  LossHead lossHead_;
  Tensor params_;
  Tensor grads_;
  std::unique_ptr<Optimizer> optimizer_;
  int version_ = 0;
  std::map<MicrobatchKey, InFlight> inFlight_;
  std::unique_ptr<ShapedMicrobatches> tokens_;  // under StageOptions::tokens, else null
  // Off the host device: the synthetic inputs (first stage) and targets (last) made ahead.
  std::unique_ptr<HostBatches> inputs_;
  std::unique_ptr<HostBatches> targets_;
  mutable std::map<MicrobatchKey, double> losses_;
  mutable std::map<MicrobatchKey, Tensor> pendingLosses_;  // one double each, on the device
  ExpertExchange* experts_ = nullptr;
  // GNNPipe: the graph (its chunks are the step's micro-batches) and, per layer, every node's
  // latest input to it (the historical embeddings; counted).
  std::shared_ptr<const ChunkGraph> graph_;
  std::vector<Tensor> history_;
  Tensor updateAverage_;  // LayerPipe2's ē; empty unless averageUpdates() was called
  float averageBeta_ = 0;
};

}  // namespace ps::runtime
