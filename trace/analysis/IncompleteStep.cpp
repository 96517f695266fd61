#include "trace/analysis/IncompleteStep.h"

#include <algorithm>
#include <limits>

namespace ps::trace {

std::optional<IncompleteStep> incompleteLastStep(const RunTrace& run,
                                                 const std::vector<int>& steps) {
  if (run.info.status == RunStatus::Complete || steps.size() < 2) return std::nullopt;
  std::vector<std::int64_t> ops(steps.size(), 0);
  for (const auto& r : run.ranks) {
    const auto& lane = r.lane(Lane::Compute);
    std::size_t k = 0;  // a lane's ops are mostly in step order: look up only when it changes
    for (const std::int32_t step : lane.step) {
      if (steps[k] != step)
        k = static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), step) -
                                     steps.begin());
      if (k < steps.size() && steps[k] == step)
        ++ops[k];
      else
        k = 0;
    }
  }
  const std::int64_t fewest = *std::min_element(ops.begin(), ops.end() - 1);
  if (ops.back() >= fewest) return std::nullopt;
  return IncompleteStep{steps.back(), ops.back(), fewest};
}

}  // namespace ps::trace
