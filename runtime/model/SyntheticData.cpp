#include "runtime/model/SyntheticData.h"

#include <cmath>

#include "runtime/model/Rng.h"

namespace ps::runtime {

void SyntheticData::input(MicrobatchKey key, float* out) const {
  // The step and micro-batch are offset so that (step, mb) = (0, 0) is not the bare seed's stream.
  Rng rng(Rng::key(config_.seed, 0x5eed0000ULL + static_cast<std::uint64_t>(key.step),
                   static_cast<std::uint64_t>(key.microbatch)));
  const long n = config_.activationElems();
  for (long i = 0; i < n; ++i)
    out[i] = rng.normal();
}

void SyntheticData::target(MicrobatchKey key, float* out) const {
  // Built in place over the input (no uncounted scratch): rows are rewritten last to first, so
  // row r−1 is still the input when row r reads it, and each row keeps its first input value.
  const int H = config_.hidden;
  input(key, out);
  for (int r = config_.rows() - 1; r >= 0; --r) {
    float* row = out + static_cast<long>(r) * H;
    const bool hasPrevious = config_.block == BlockType::Transformer && r % config_.seq != 0;
    const float first = row[0];
    for (int j = 0; j < H; ++j) {
      const float shuffled = j + 1 < H ? row[j + 1] : first;
      row[j] = std::sin(shuffled) + (hasPrevious ? 0.5f * row[j - H] : 0.0f);
    }
  }
}

}  // namespace ps::runtime
