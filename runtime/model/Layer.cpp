#include "runtime/model/Layer.h"

#include <cmath>
#include <string_view>

#include "runtime/model/GnnBlock.h"
#include "runtime/model/MlpBlock.h"
#include "runtime/model/MoeBlock.h"
#include "runtime/model/Rng.h"
#include "runtime/model/TransformerBlock.h"

namespace ps::runtime {

void Layer::initParams(float* params, std::uint64_t seed) const {
  const auto& slices = layout_.slices();
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const ParamSlice& s = slices[i];
    float* p = params + s.offset;
    const std::string_view name = s.name;
    if (s.fanIn == 0) {
      // Norm gains start at 1, biases and norm shifts at 0.
      const float v = name.ends_with(".gamma") ? 1.0f : 0.0f;
      for (std::size_t k = 0; k < s.size; ++k)
        p[k] = v;
      continue;
    }
    // N(0, 1/fanIn); projections back into the residual stream are further scaled by
    // 1/√(2L) (GPT-2), so a deep stack starts close to the identity and trains stably.
    float sd = 1.0f / std::sqrt(static_cast<float>(s.fanIn));
    if (name.ends_with(".w2") || name.ends_with(".wo")) {
      sd /= std::sqrt(2.0f * static_cast<float>(config_.layers));
    }
    Rng rng(Rng::key(seed, s.seedIndex));
    for (std::size_t k = 0; k < s.size; ++k)
      p[k] = sd * rng.normal();
  }
}

std::unique_ptr<Layer> makeLayer(const ModelConfig& config) {
  if (config.block == BlockType::Transformer) return std::make_unique<TransformerBlock>(config);
  if (config.block == BlockType::Moe) return std::make_unique<MoeBlock>(config);
  if (config.block == BlockType::Gnn) return std::make_unique<GnnBlock>(config);
  return std::make_unique<MlpBlock>(config);
}

}  // namespace ps::runtime
