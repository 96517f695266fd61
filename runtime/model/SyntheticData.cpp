#include "runtime/model/SyntheticData.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/model/KeyClustering.h"
#include "runtime/model/Rng.h"

namespace ps::runtime {

void SyntheticData::input(MicrobatchKey key, float* out) const {
  inputRange(key, out, 0, config_.activationElems());
}

struct SyntheticData::ClusterCache {
  std::mutex mutex;
  std::map<int, std::vector<int>> orderOfStep;  // the latest few steps
};

SyntheticData::SyntheticData(const ModelConfig& config)
    : config_(config), clusters_(std::make_shared<ClusterCache>()) {}

void SyntheticData::sampleKeys(int step, int sample, int* out) const {
  Rng rng(Rng::key(config_.seed, 0x1d500000ULL + static_cast<std::uint64_t>(step),
                   static_cast<std::uint64_t>(sample)));
  const auto rows = static_cast<std::uint64_t>(std::max(1, config_.embeddingRows));
  const std::uint64_t topics = std::max<std::uint64_t>(1, rows / kKeysPerTopic);
  const std::uint64_t topic = rng.next() % topics;
  for (int t = 0; t < config_.seq; ++t) {
    const bool onTopic = rng.next() % 4 != 0;
    const std::uint64_t key =
        onTopic ? topic * kKeysPerTopic + rng.next() % kKeysPerTopic : rng.next() % rows;
    out[t] = static_cast<int>(std::min(key, rows - 1));
  }
}

std::vector<int> SyntheticData::clusteredSamples(int step) const {
  std::lock_guard lock(clusters_->mutex);
  auto& cache = clusters_->orderOfStep;
  if (auto it = cache.find(step); it != cache.end()) return it->second;
  const int samples = config_.clusterKeys * config_.microbatchSize;
  std::vector<std::vector<int>> keys(static_cast<std::size_t>(samples),
                                     std::vector<int>(static_cast<std::size_t>(config_.seq)));
  for (int s = 0; s < samples; ++s)
    sampleKeys(step, s, keys[static_cast<std::size_t>(s)].data());
  std::vector<int> order = clusterSamplesByKey(keys, config_.microbatchSize);
  if (cache.size() >= 4) cache.erase(cache.begin());
  cache.emplace(step, order);
  return order;
}

void SyntheticData::tokenIds(MicrobatchKey key, int* out) const {
  const int B = config_.microbatchSize;
  std::vector<int> order;
  if (config_.clusterKeys > 0) order = clusteredSamples(key.step);
  for (int b = 0; b < B; ++b) {
    const int sample = key.microbatch * B + b;
    const bool clustered = static_cast<std::size_t>(sample) < order.size();
    sampleKeys(key.step, clustered ? order[static_cast<std::size_t>(sample)] : sample,
               out + b * config_.seq);
  }
}

void SyntheticData::inputRange(MicrobatchKey key, float* out, long begin, long end) const {
  // Each token's features drawn from its id: an embedding row's, or a graph node's (the chunk's
  // nodes, the same every step).
  const bool gnn = config_.block == BlockType::Gnn;
  if (config_.embeddingRows > 0 || gnn) {
    const long H = config_.hidden;
    std::vector<int> ids(static_cast<std::size_t>(config_.rows()));
    if (gnn)
      for (int t = 0; t < config_.rows(); ++t)
        ids[static_cast<std::size_t>(t)] = key.microbatch * config_.rows() + t;
    else
      tokenIds(key, ids.data());
    std::vector<float> row(static_cast<std::size_t>(H) + 1);
    for (long t = begin / H; t * H < end; ++t) {
      Rng rng(Rng::key(config_.seed, 0xe1d00000ULL, static_cast<std::uint64_t>(ids[t])));
      for (long j = 0; j < H; j += 2)
        rng.normalPair(row[j], row[j + 1]);
      for (long j = std::max(begin - t * H, 0L); j < H && t * H + j < end; ++j)
        out[t * H + j - begin] = row[j];
    }
    return;
  }
  // The step and micro-batch are offset so that (step, mb) = (0, 0) is not the bare seed's stream.
  Rng rng(Rng::key(config_.seed, 0x5eed0000ULL + static_cast<std::uint64_t>(key.step),
                   static_cast<std::uint64_t>(key.microbatch)));
  // Element i is one of pair i / 2: a piece starting at an odd element makes its first pair and
  // keeps the second value.
  rng.skip(static_cast<std::uint64_t>(begin / 2) * Rng::kCallsPerPair);
  float a = 0, b = 0;
  long i = begin;
  if (i % 2 == 1 && i < end) {
    rng.normalPair(a, b);
    out[i++ - begin] = b;
  }
  for (; i + 1 < end; i += 2)
    rng.normalPair(out[i - begin], out[i + 1 - begin]);
  if (i < end) {
    rng.normalPair(a, b);
    out[i - begin] = a;
  }
}

void SyntheticData::targetRow(int r, const float* in, const float* previous, float* dst) const {
  const int H = config_.hidden;
  const bool hasPrevious = config_.block == BlockType::Transformer && r % config_.seq != 0;
  for (int j = 0; j < H; ++j)
    dst[j] = std::sin(in[j + 1 < H ? j + 1 : 0]) + (hasPrevious ? 0.5f * previous[j] : 0.0f);
}

void SyntheticData::targetRows(const float* input, float* out, int rowBegin, int rowEnd) const {
  // Out of place: the rows can be made in any order.
  const long H = config_.hidden;
  for (int r = rowBegin; r < rowEnd; ++r)
    targetRow(r, input + r * H, r > 0 ? input + (r - 1) * H : nullptr, out + r * H);
}

void SyntheticData::target(MicrobatchKey key, float* out) const {
  // Built over the input (one row of scratch): rows are rewritten last to first, so row r−1 is
  // still the input when row r reads it; row r's own input is copied aside first.
  const long H = config_.hidden;
  input(key, out);
  std::vector<float> own(static_cast<std::size_t>(H));
  for (int r = config_.rows() - 1; r >= 0; --r) {
    float* row = out + r * H;
    std::copy(row, row + H, own.begin());
    targetRow(r, own.data(), r > 0 ? row - H : nullptr, row);
  }
}

}  // namespace ps::runtime
