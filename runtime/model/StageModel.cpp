// StageModel: construction, sizes, losses and weights. The passes are in StageModelPasses.cpp.
#include "runtime/model/StageModel.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/model/Rng.h"

namespace ps::runtime {

Result<std::unique_ptr<StageModel>> StageModel::create(const ModelConfig& config,
                                                       const StageOptions& options) {
  PS_TRY(validate(config));
  PS_TRY(validate(options.optimizer));
  const int last = options.lastLayer < 0 ? config.layers - 1 : options.lastLayer;
  if (options.firstLayer < 0 || options.firstLayer > last || last >= config.layers) {
    return Error{"stage layer range [" + std::to_string(options.firstLayer) + ", " +
                 std::to_string(last) + "] is not inside the model's " +
                 std::to_string(config.layers) + " layers"};
  }
  if (options.microbatchesPerStep < 1) {
    return Error{"micro-batches per step must be at least 1, got " +
                 std::to_string(options.microbatchesPerStep)};
  }
  if (options.tokens) {
    if (options.memory && !options.memory->device().isHost())
      return Error{
          "micro-batches of their own shapes (sequence lengths, token slices) run on "
          "the host only, not on " +
          options.memory->device().name()};
    for (const MicrobatchTokens& mb : options.tokens->microbatches)
      if (mb.numRows() < 1 || mb.cols < 1)
        return Error{"a micro-batch of no tokens (" + std::to_string(mb.numRows()) + " rows of " +
                     std::to_string(mb.cols) + ")"};
  }
  StageOptions resolved = options;
  resolved.lastLayer = last;
  return std::unique_ptr<StageModel>(new StageModel(config, resolved));
}

StageModel::StageModel(const ModelConfig& config, const StageOptions& options)
    : config_(config),
      first_(options.firstLayer),
      last_(options.lastLayer),
      microbatchesPerStep_(options.microbatchesPerStep),
      inference_(options.inference),
      source_(options.source),
      memory_(options.memory ? options.memory : std::make_shared<MemoryCounter>()),
      block_(makeLayer(config)),
      data_(config),
      lossHead_(config) {
  if (options.tokens)
    tokens_ =
        std::make_unique<ShapedMicrobatches>(config_, options.tokens, last_ - first_ + 1, memory_);
  const std::size_t perLayer = block_->paramCount();
  params_ = Tensor(memory_, perLayer * static_cast<std::size_t>(last_ - first_ + 1));
  if (!inference_) grads_ = Tensor(memory_, params_.size());
  // Each layer's weights depend on (seed, layer index) only, so every split of the model into
  // stages starts from exactly the same weights as the whole model.
  // Initialised on the host (the same numbers on every backend), then uploaded.
  std::vector<float> initial(params_.size());
  for (int layer = first_; layer <= last_; ++layer) {
    block_->initParams(initial.data() + layerOffset(layer),
                       Rng::key(config_.seed, 0x1a7e5ULL, static_cast<std::uint64_t>(layer)));
  }
  device().upload(params_.data(), initial.data(), initial.size() * sizeof(float));
  if (!inference_) optimizer_ = Optimizer::create(options.optimizer, params_.size(), memory_);
  // GNNPipe: one chunk of the graph a micro-batch, the same graph on every stage.
  if (config_.block == BlockType::Gnn) {
    const int nodes = config_.rows() * std::max(1, microbatchesPerStep_);
    graph_ = std::make_shared<const ChunkGraph>(
        makePowerLawGraph(nodes, config_.rows(), config_.graphLinks, config_.seed));
    for (int layer = first_; layer <= last_; ++layer)
      history_.emplace_back(memory_, static_cast<std::size_t>(nodes) * config_.hidden);
  }
  // On a GPU the host's synthetic data would set the first and last stages' pace: made ahead.
  if (!device().isHost() && !tokens_) {
    const int threads = HostBatches::defaultThreads();
    if (isFirst())
      inputs_ = std::make_unique<HostBatches>(HostBatches::Kind::Input, config_,
                                              microbatchesPerStep_, threads);
    if (isLast())
      targets_ = std::make_unique<HostBatches>(HostBatches::Kind::Target, config_,
                                               microbatchesPerStep_, threads);
  }
}

void StageModel::prepareBatches(MicrobatchKey key) {
  if (inputs_) inputs_->prepare(key);
  if (targets_) targets_->prepare(key);
}

std::size_t StageModel::layerOffset(int layer) const {
  return static_cast<std::size_t>(layer - first_) * block_->paramCount();
}

long StageModel::boundaryElems(MicrobatchKey key) const {
  return tokens_ ? tokens_->boundaryElems(key) : boundaryElems();
}

const Layer& StageModel::blockFor(MicrobatchKey key) const {
  return tokens_ ? tokens_->block(key) : *block_;
}

std::int64_t StageModel::activationBytesPerMicrobatch() const {
  const std::int64_t layers = last_ - first_ + 1;
  return layers * block_->forwardStashBytes() + (isLast() ? boundaryBytes() : 0);
}

std::int64_t StageModel::backwardStashBytesPerMicrobatch() const {
  return (last_ - first_ + 1) * block_->backwardStashBytes();
}

void StageModel::collectLosses() const {
  for (auto& [key, value] : pendingLosses_) {
    double loss = 0;
    device().download(&loss, value.data(), sizeof loss);
    losses_[key] = loss;
  }
  pendingLosses_.clear();
}

std::optional<double> StageModel::finishedLoss(MicrobatchKey key) const {
  if (auto pending = pendingLosses_.find(key); pending != pendingLosses_.end()) {
    double loss = 0;
    device().readBack(&loss, pending->second.data(), sizeof loss);
    losses_[key] = loss;
    pendingLosses_.erase(pending);
  }
  const auto it = losses_.find(key);
  if (it == losses_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> StageModel::loss(MicrobatchKey key) const {
  if (!pendingLosses_.empty()) collectLosses();
  const auto it = losses_.find(key);
  if (it == losses_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> StageModel::stepLoss(int step) const {
  if (!pendingLosses_.empty()) collectLosses();
  double sum = 0;
  int count = 0;
  for (auto it = losses_.lower_bound({step, INT_MIN});
       it != losses_.end() && it->first.step == step; ++it) {
    sum += it->second;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

void StageModel::zeroGradients() {
  if (grads_.empty()) return;  // inference
  device().fill(grads_.data(), 0.0f, static_cast<long>(grads_.size()));
}

void StageModel::optimizerStep() {
  if (!optimizer_) return;  // inference: nothing to update
  std::vector<float> before;
  if (!updateAverage_.empty()) before = copyParameters();
  optimizer_->step(params_.data(), grads_.data());
  zeroGradients();
  ++version_;
  if (updateAverage_.empty()) return;
  const std::vector<float> after = copyParameters();
  std::vector<float> average(after.size());
  device().download(average.data(), updateAverage_.data(), average.size() * sizeof(float));
  for (std::size_t i = 0; i < average.size(); ++i)
    average[i] = averageBeta_ * average[i] + (1.0f - averageBeta_) * (after[i] - before[i]);
  device().upload(updateAverage_.data(), average.data(), average.size() * sizeof(float));
}

void StageModel::averageUpdates(float beta) {
  averageBeta_ = beta;
  if (updateAverage_.empty()) updateAverage_ = Tensor(memory_, params_.size());  // zeroed
}

Status StageModel::rebuildForwardWeights(MicrobatchKey key) {
  auto it = inFlight_.find(key);
  if (it == inFlight_.end() || updateAverage_.empty()) return {};
  const int updates = version_ - it->second.forwardVersion;
  if (updates <= 0) return {};
  std::vector<float> weights = copyParameters();
  std::vector<float> average(weights.size());
  device().download(average.data(), updateAverage_.data(), average.size() * sizeof(float));
  for (std::size_t i = 0; i < weights.size(); ++i)
    weights[i] -= static_cast<float>(updates) * average[i];
  Tensor rebuilt(memory_, weights.size());
  device().upload(rebuilt.data(), weights.data(), weights.size() * sizeof(float));
  it->second.version =
      std::make_shared<const ParamVersion>(it->second.forwardVersion, std::move(rebuilt));
  return {};
}

Status StageModel::blendStashWithLive(MicrobatchKey key, float decay) {
  auto it = inFlight_.find(key);
  if (it == inFlight_.end() || !it->second.version) return {};
  const int updates = version_ - it->second.version->version();
  if (updates <= 0) return {};
  const float keep = std::exp(-decay * static_cast<float>(updates));
  std::vector<float> weights = copyParameters();
  std::vector<float> stashed(weights.size());
  device().download(stashed.data(), it->second.version->data(), stashed.size() * sizeof(float));
  for (std::size_t i = 0; i < weights.size(); ++i)
    weights[i] += keep * (stashed[i] - weights[i]);
  Tensor blended(memory_, weights.size());
  device().upload(blended.data(), weights.data(), weights.size() * sizeof(float));
  it->second.version =
      std::make_shared<const ParamVersion>(it->second.version->version(), std::move(blended));
  return {};
}

std::vector<float> StageModel::copyParameters() const {
  std::vector<float> out(params_.size());
  device().download(out.data(), params_.data(), out.size() * sizeof(float));
  return out;
}

std::vector<float> StageModel::copyGradients() const {
  std::vector<float> out(grads_.size());
  device().download(out.data(), grads_.data(), out.size() * sizeof(float));
  return out;
}

std::shared_ptr<const ParamVersion> StageModel::snapshot() const {
  return std::make_shared<const ParamVersion>(version_, params_.clone());
}

std::shared_ptr<const ParamVersion> StageModel::predictedSnapshot(int updates) const {
  if (!optimizer_ || updates <= 0) return snapshot();
  const std::vector<float> live = copyParameters();
  std::vector<float> predicted(live.size());
  optimizer_->predict(predicted, live, updates);
  Tensor weights(memory_, predicted.size());
  device().upload(weights.data(), predicted.data(), predicted.size() * sizeof(float));
  return std::make_shared<const ParamVersion>(version_ + updates, std::move(weights));
}

std::optional<int> StageModel::versionUsed(MicrobatchKey key) const {
  const auto it = inFlight_.find(key);
  if (it == inFlight_.end()) return std::nullopt;
  return it->second.version ? it->second.version->version() : -1;
}

const float* StageModel::weightsFor(const InFlight& f) const {
  return f.version ? f.version->data() : params_.data();
}

}  // namespace ps::runtime
