#include "runtime/model/ModelConfig.h"

#include <string>

namespace ps::runtime {

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
  }
  return "mlp";
}

Result<BlockType> parseBlockType(std::string_view name) {
  if (name == "mlp") return BlockType::Mlp;
  if (name == "transformer") return BlockType::Transformer;
  if (name == "snn") return BlockType::Spiking;
  return Error{"unknown model '" + std::string(name) + "' (expected mlp, transformer or snn)"};
}

}  // namespace ps::runtime
