#include "runtime/model/ModelConfig.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ps::runtime {

int ModelConfig::expertCapacity() const {
  const double tokens = capacityFactor * topK * rows() / std::max(1, experts);
  return std::clamp(static_cast<int>(std::ceil(tokens - 1e-9)), 1, rows());
}

Status validate(const ModelConfig& c) {
  const auto positive = [](int v, const char* name) -> Status {
    if (v > 0) return {};
    return Error{std::string("model ") + name + " must be positive, got " + std::to_string(v)};
  };
  PS_TRY(positive(c.layers, "layers"));
  PS_TRY(positive(c.hidden, "hidden size"));
  PS_TRY(positive(c.seq, "sequence length"));
  PS_TRY(positive(c.microbatchSize, "micro-batch size"));
  PS_TRY(positive(c.heads, "heads"));
  PS_TRY(positive(c.ffnMultiplier, "ffn multiplier"));
  if (c.block == BlockType::Spiking && (c.timeSteps < 1 || c.timeSteps > 64))
    return Error{"model time steps must be 1..64 (spiking block), got " +
                 std::to_string(c.timeSteps)};
  if (c.embeddingRows < 0 || c.embeddingRows > (1 << 24))
    return Error{"model embedding rows must be 0..16777216, got " +
                 std::to_string(c.embeddingRows)};
  if (c.block == BlockType::Moe) {
    if (c.experts < 2 || c.experts > 64)
      return Error{"model experts must be 2..64 (moe block), got " + std::to_string(c.experts)};
    if (c.topK < 1 || c.topK > c.experts)
      return Error{"model top-k must be 1.." + std::to_string(c.experts) + " (moe block), got " +
                   std::to_string(c.topK)};
    if (c.expertShards < 1 || c.experts % c.expertShards != 0 || c.expertShard < 0 ||
        c.expertShard >= c.expertShards)
      return Error{"model experts (" + std::to_string(c.experts) +
                   ") do not share out evenly over " + std::to_string(c.expertShards) +
                   " expert-parallel replicas"};
    if (!(c.capacityFactor > 0) || c.capacityFactor > 64)
      return Error{"model capacity factor must be in (0, 64] (moe block), got " +
                   std::to_string(c.capacityFactor)};
  }
  if (c.block == BlockType::Transformer && c.hidden % c.heads != 0) {
    return Error{"model hidden size " + std::to_string(c.hidden) + " is not divisible by " +
                 std::to_string(c.heads) + " heads"};
  }
  return {};
}

std::string_view blockTypeName(BlockType type) {
  switch (type) {
    case BlockType::Mlp:
      return "mlp";
    case BlockType::Transformer:
      return "transformer";
    case BlockType::Spiking:
      return "snn";
    case BlockType::Moe:
      return "moe";
    case BlockType::Gnn:
      return "gnn";
  }
  return "mlp";
}

Result<BlockType> parseBlockType(std::string_view name) {
  if (name == "mlp") return BlockType::Mlp;
  if (name == "transformer") return BlockType::Transformer;
  if (name == "snn") return BlockType::Spiking;
  if (name == "moe") return BlockType::Moe;
  if (name == "gnn") return BlockType::Gnn;
  return Error{"unknown model '" + std::string(name) +
               "' (expected mlp, transformer, snn, moe or gnn)"};
}

}  // namespace ps::runtime
