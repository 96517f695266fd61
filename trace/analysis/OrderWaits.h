#pragma once
// The `order` idle cause (issue 36 §2): a rank that waits for its next op's input while a later
// op of its own program already had its inputs waits because of its order, not its inputs
// (pytorch/pytorch#172668: a receive posted before independent compute). For a gap ended by
// op X, the earliest time in the gap at which an op after X on the same rank and in the same
// step was ready — every recorded input ended — and could have run: a backward, input-gradient
// or weight-gradient op at any time (each frees memory or keeps it level), a forward or a
// recompute only while the rank held fewer activations than its peak (running it then raises no
// new peak: 1F1B's rank 0 holding p micro-batches is its plan, not an order mistake).
// Looks at most kLookahead ops past X.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "trace/analysis/ActivationsInFlight.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {

class ReadyLater {
 public:
  static constexpr std::size_t kLookahead = 32;

  explicit ReadyLater(const StepGraph& graph);

  // Prepares rank r's ops of step k (StepGraph::ops): when each had its inputs.
  void rankStep(int rank, std::size_t k);

  struct Ready {
    std::int64_t at = 0;  // in the gap: from here on the op could have run
    OpRef op;
  };
  // For the gap [from, to) ended by the op at `pos` in the rank-step's ops: the earliest time in
  // it at which a later op was ready and could run; nullopt when none was before `to`.
  std::optional<Ready> during(std::int64_t from, std::int64_t to, std::size_t pos) const;

 private:
  const StepGraph& graph_;
  ActivationsInFlight inFlight_;
  int rank_ = 0;
  std::size_t k_ = 0;
  std::vector<std::int64_t> ready_;  // per position: when its last input ended
};

}  // namespace ps::trace
