#pragma once
// NestPipe's embedding table (ModelConfig::embeddingRows): rows of H floats looked up by token
// id, sharded over the ranks (row v lives on shard v mod shards). A shard gathers the rows it
// holds for a micro-batch's tokens, adds the gradients of those tokens' lookups into its rows,
// and updates them with its own optimizer at the step. Initial rows depend on the id alone, so
// any sharding (and the unpipelined reference, one shard) starts from the same table.
// Host memory only (the executor moves rows between ranks as host tensors).

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/model/MemoryCounter.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/Optimizer.h"
#include "runtime/model/Tensor.h"
#include "trace/Result.h"

namespace ps::runtime {

class EmbeddingTable {
 public:
  [[nodiscard]] static Result<std::unique_ptr<EmbeddingTable>> create(
      const ModelConfig& config, int shards, int shard, const OptimizerConfig& optimizer,
      std::shared_ptr<MemoryCounter> memory);

  int shardOf(int row) const { return row % shards_; }
  bool holds(int row) const { return shardOf(row) == shard_; }
  // The rows this shard holds among `ids`, in token order, packed: [held tokens × H].
  std::vector<float> gather(const std::vector<int>& ids) const;
  // Adds packed gradients ([held tokens × H], token order) into the rows of the tokens held.
  void addGradients(const std::vector<int>& ids, const float* packed);
  // Updates the rows from their gradients (then zeroed).
  void step();
  std::int64_t bytes() const { return rows_.bytes() + grads_.bytes(); }

 private:
  EmbeddingTable(const ModelConfig& config, int shards, int shard);
  std::size_t localRow(int row) const { return static_cast<std::size_t>(row / shards_); }

  int hidden_, shards_, shard_;
  Tensor rows_, grads_;
  std::unique_ptr<Optimizer> optimizer_;
};

// What moves between the shards and the first stage: one row per distinct key, not per token.
// The distinct ids among `ids` that shard `shard` of `shards` holds, ascending.
std::vector<int> heldKeys(const std::vector<int>& ids, int shards, int shard);
// Into each token of `ids` whose id is among `keys` (ascending): that key's row of `rows`
// ([keys × H]); other tokens are left as they are.
void scatterRows(const std::vector<int>& ids, const std::vector<int>& keys, const float* rows,
                 int hidden, float* full);
// Per key of `keys` (ascending), the sum of the rows of `full` ([tokens × H]) of the tokens with
// that id: [keys × H].
std::vector<float> sumRowsByKey(const std::vector<int>& ids, const std::vector<int>& keys,
                                const float* full, int hidden);

}  // namespace ps::runtime
