#pragma once
// The simulator's memory model per rank: a static base (parameters, gradients and optimizer
// state, plus a second weight version under PipeDream-2BW) and activations allocated when F
// starts and released when the last backward op of that stage and micro-batch ends (B, or W for
// split backward). Under recompute only the stage input is kept after F; R brings the rest back.
// PipeDream's weight stashing keeps one weight version per in-flight micro-batch.

#include <cstdint>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime {

struct SimResult;

class MemoryTracker {
 public:
  MemoryTracker(const Plan& plan, const CostModel& cost);

  // Called when an op is placed on rank `rank` over [start, end).
  void onStart(int rank, const Action& a, std::int64_t start, std::int64_t end);
  // Turns the recorded changes into memory samples and per-rank peaks.
  void finish(SimResult& out);

  std::int64_t baseBytes(int rank) const { return base_[rank]; }

 private:
  struct Delta {
    std::int64_t t;
    std::int64_t bytes;     // change of total bytes in use
    std::int64_t actBytes;  // change of activation bytes (the part above the base)
  };
  std::int64_t stageParams(int stage) const;
  std::int64_t stageInput(int stage) const;

  const Plan& plan_;
  const CostModel& cost_;
  std::vector<std::int64_t> base_;
  std::vector<std::int64_t> act_;           // per stage, one micro-batch at cost scale 1
  std::vector<std::vector<Delta>> deltas_;  // per rank
};

}  // namespace ps::runtime
