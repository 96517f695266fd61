#pragma once
// Synthetic regression data, a pure function of (seed, step, micro-batch) so that the first stage
// (inputs) and the last stage (targets) of a pipeline, on any rank or process, and the unpipelined
// reference all see the same numbers without sending them around.
//
// Inputs x ~ N(0, 1) per element, [rows×H] (Box–Muller pairs, Rng::normalPair). Targets are a fixed
// nonlinear function the blocks can learn: t[r, j] = sin(x[r, (j+1) mod H]) (a feature shuffle
// through a nonlinearity, position-wise, so an MLP block can fit it), plus, for transformer models,
// 0.5·x[r−1, j] when token r has a predecessor in its sequence (only causal attention can fit that
// part).

#include <memory>
#include <vector>

#include "runtime/model/MicrobatchKey.h"
#include "runtime/model/ModelConfig.h"

namespace ps::runtime {

class SyntheticData {
 public:
  explicit SyntheticData(const ModelConfig& config);

  // out: config.activationElems() floats. With an embedding table (ModelConfig::embeddingRows)
  // each token's features are its id's: N(0, 1) values drawn from the id.
  void input(MicrobatchKey key, float* out) const;
  // With an embedding table: the micro-batch's token ids, config.rows() of them: its B samples'
  // S keys each. Keys come in topics as a recommendation log's do: each sample has a topic and
  // draws 3 of 4 keys from its topic's block of kKeysPerTopic rows, the rest from the whole
  // table. Micro-batch m holds the step's samples mB .. mB + B − 1, or with
  // ModelConfig::clusterKeys those the key-centric clustering puts together (KeyClustering.h).
  void tokenIds(MicrobatchKey key, int* out) const;
  static constexpr int kKeysPerTopic = 16;
  void target(MicrobatchKey key, float* out) const;

  // Pieces of the same numbers, for making one micro-batch on several threads (HostBatches):
  // input elements [begin, end) into out[0, end − begin); target rows [rowBegin, rowEnd) into
  // out (the whole target's layout) from the micro-batch's whole input.
  void inputRange(MicrobatchKey key, float* out, long begin, long end) const;
  void targetRows(const float* input, float* out, int rowBegin, int rowEnd) const;

 private:
  // Target row r into dst from its own input row and the previous row's input (read only for a
  // transformer's token with a predecessor).
  void targetRow(int r, const float* in, const float* previous, float* dst) const;

  // Sample `sample` of the step's (in order, before any clustering): its S keys into out.
  void sampleKeys(int step, int sample, int* out) const;
  // The step's samples in clustered order (cached: every micro-batch of a step asks).
  std::vector<int> clusteredSamples(int step) const;

  ModelConfig config_;
  struct ClusterCache;
  std::shared_ptr<ClusterCache> clusters_;
};

}  // namespace ps::runtime
