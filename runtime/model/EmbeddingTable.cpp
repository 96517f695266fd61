#include "runtime/model/EmbeddingTable.h"

#include <algorithm>
#include <string>

#include "runtime/model/Rng.h"

namespace ps::runtime {

EmbeddingTable::EmbeddingTable(const ModelConfig& config, int shards, int shard)
    : hidden_(config.hidden), shards_(shards), shard_(shard) {}

Result<std::unique_ptr<EmbeddingTable>> EmbeddingTable::create(
    const ModelConfig& config, int shards, int shard, const OptimizerConfig& optimizer,
    std::shared_ptr<MemoryCounter> memory) {
  if (config.embeddingRows <= 0 || shards < 1 || shard < 0 || shard >= shards)
    return Error{"embedding table: " + std::to_string(config.embeddingRows) + " rows over " +
                 std::to_string(shards) + " shards (shard " + std::to_string(shard) + ")"};
  if (!memory->device().isHost())
    return Error{"embedding table: its rows live in host memory, not on " +
                 memory->device().name()};
  std::unique_ptr<EmbeddingTable> t(new EmbeddingTable(config, shards, shard));
  const int held = (config.embeddingRows - shard + shards - 1) / shards;
  const auto size = static_cast<std::size_t>(held) * config.hidden;
  t->rows_ = Tensor(memory, size);
  t->grads_ = Tensor(memory, size);
  for (int local = 0; local < held; ++local) {
    const int row = local * shards + shard;
    Rng rng(Rng::key(config.seed, 0xe3b00000ULL, static_cast<std::uint64_t>(row)));
    float* dst = t->rows_.data() + static_cast<std::size_t>(local) * config.hidden;
    for (int j = 0; j < config.hidden; ++j)
      dst[j] = rng.normal();
  }
  t->optimizer_ = Optimizer::create(optimizer, size, std::move(memory));
  return t;
}

std::vector<float> EmbeddingTable::gather(const std::vector<int>& ids) const {
  std::vector<float> out;
  for (int id : ids)
    if (holds(id)) {
      const float* row = rows_.data() + localRow(id) * hidden_;
      out.insert(out.end(), row, row + hidden_);
    }
  return out;
}

void EmbeddingTable::addGradients(const std::vector<int>& ids, const float* packed) {
  for (int id : ids)
    if (holds(id)) {
      float* row = grads_.data() + localRow(id) * hidden_;
      for (int j = 0; j < hidden_; ++j)
        row[j] += packed[j];
      packed += hidden_;
    }
}

void EmbeddingTable::step() {
  if (rows_.size() == 0) return;
  optimizer_->step(rows_.data(), grads_.data());
  std::fill(grads_.data(), grads_.data() + grads_.size(), 0.0f);
}

std::vector<int> heldKeys(const std::vector<int>& ids, int shards, int shard) {
  std::vector<int> keys;
  for (int id : ids)
    if (id % shards == shard) keys.push_back(id);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

namespace {

// The index of `id` in `keys` (ascending), or -1.
long indexOf(const std::vector<int>& keys, int id) {
  const auto it = std::lower_bound(keys.begin(), keys.end(), id);
  return it != keys.end() && *it == id ? it - keys.begin() : -1;
}

}  // namespace

void scatterRows(const std::vector<int>& ids, const std::vector<int>& keys, const float* rows,
                 int hidden, float* full) {
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (const long k = indexOf(keys, ids[t]); k >= 0)
      std::copy_n(rows + k * hidden, hidden, full + t * static_cast<std::size_t>(hidden));
}

std::vector<float> sumRowsByKey(const std::vector<int>& ids, const std::vector<int>& keys,
                                const float* full, int hidden) {
  std::vector<float> sums(keys.size() * static_cast<std::size_t>(hidden), 0.0f);
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (const long k = indexOf(keys, ids[t]); k >= 0) {
      const float* row = full + t * static_cast<std::size_t>(hidden);
      float* sum = sums.data() + k * hidden;
      for (int j = 0; j < hidden; ++j)
        sum[j] += row[j];
    }
  return sums;
}

}  // namespace ps::runtime
