#include "runtime/model/TokenLayout.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace ps::runtime {

long MicrobatchTokens::realTokens() const {
  long n = 0;
  for (const auto& row : rows)
    for (const TokenPiece& p : row)
      n += p.count;
  return n;
}

std::vector<int> MicrobatchTokens::pieceStarts() const {
  std::vector<int> starts(static_cast<std::size_t>(numRows()) * static_cast<std::size_t>(cols));
  for (int r = 0; r < numRows(); ++r) {
    int* row = starts.data() + static_cast<long>(r) * cols;
    int col = 0;
    for (const TokenPiece& p : rows[static_cast<std::size_t>(r)]) {
      std::fill(row + col, row + col + p.count, col);
      col += p.count;
    }
    std::fill(row + col, row + cols, col);  // padding: a piece of its own
  }
  return starts;
}

void fillTokens(const ModelConfig& config, const TokenLayouts& layouts, MicrobatchKey key,
                bool target, float* out) {
  const MicrobatchTokens& mb = layouts.microbatches[static_cast<std::size_t>(key.microbatch)];
  const int H = config.hidden;
  std::fill(out, out + static_cast<long>(mb.numRows()) * mb.cols * H, 0.0f);
  // Each source (a whole uniform micro-batch, or one sequence) is made once per call.
  std::map<int, std::vector<float>> sources;
  const auto source = [&](int sequence) -> std::pair<const float*, int> {
    const bool sliced = layouts.slicesOfMicrobatches;
    const int id = sliced ? sequence / layouts.rowsPerMicrobatch : sequence;
    ModelConfig shape = config;
    if (!sliced) {
      shape.microbatchSize = 1;
      shape.seq = layouts.sequenceLengths[static_cast<std::size_t>(sequence)];
    }
    auto [it, made] = sources.try_emplace(id);
    if (made) {
      it->second.resize(static_cast<std::size_t>(shape.activationElems()));
      const SyntheticData data(shape);
      if (target)
        data.target({key.step, id}, it->second.data());
      else
        data.input({key.step, id}, it->second.data());
    }
    const int row = sliced ? sequence % layouts.rowsPerMicrobatch : 0;
    return {it->second.data() + static_cast<long>(row) * shape.seq * H, shape.seq};
  };
  for (int r = 0; r < mb.numRows(); ++r) {
    int col = 0;
    for (const TokenPiece& p : mb.rows[static_cast<std::size_t>(r)]) {
      const float* tokens = source(p.sequence).first;
      std::memcpy(out + (static_cast<long>(r) * mb.cols + col) * H,
                  tokens + static_cast<long>(p.first) * H,
                  sizeof(float) * static_cast<std::size_t>(p.count) * static_cast<std::size_t>(H));
      col += p.count;
    }
  }
}

}  // namespace ps::runtime
