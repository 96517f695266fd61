#pragma once
// The training steps the live-follow tests append to a running run: F then B on each of two
// ranks, one step per millisecond (LiveFollow through the window, LiveFollower without one).

#include <cstddef>
#include <cstdint>

#include "tests/trace/TraceBuilder.h"

namespace ps::test {

inline constexpr int kLiveRanks = 2;
inline constexpr std::size_t kLiveOpsPerStep = 2 * kLiveRanks;

inline trace::TraceBatch liveStepBatch(int step) {
  trace::TraceBatch batch;
  const std::int64_t t0 = 1'000'000 * step;
  for (int r = 0; r < kLiveRanks; ++r) {
    batch.ops.push_back(compute(r, trace::OpKind::F, 0, t0 + 1000 * r, t0 + 1000 * r + 900, step));
    batch.ops.push_back(
        compute(r, trace::OpKind::B, 0, t0 + 5000 - 1000 * r, t0 + 7000 - 1000 * r, step));
  }
  return batch;
}

}  // namespace ps::test
