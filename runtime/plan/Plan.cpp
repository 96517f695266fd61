#include "runtime/plan/Plan.h"

namespace ps::runtime {

std::vector<int> Plan::predecessors(int stage) const {
  if (!stagePreds.empty()) return stagePreds[stage];
  if (stage <= 0) return {};
  return {stage - 1};
}

std::vector<int> Plan::successors(int stage) const {
  if (stagePreds.empty()) {
    if (stage + 1 >= numStages) return {};
    return {stage + 1};
  }
  std::vector<int> out;
  for (int s = 0; s < numStages; ++s)
    for (int p : stagePreds[s])
      if (p == stage) out.push_back(s);
  return out;
}

std::size_t Plan::actionCount() const {
  std::size_t n = 0;
  for (const auto& p : programs)
    n += p.size();
  return n;
}

std::string actionLabel(const Action& a) {
  if (a.stage < 0 || a.microbatch < 0) return std::string(trace::opKindName(a.kind));
  return std::to_string(a.stage) + std::string(trace::opKindName(a.kind)) +
         std::to_string(a.microbatch);
}

std::string actionLabel(const ActionRef& a) {
  return actionLabel(Action{a.kind, a.stage, a.microbatch, a.step});
}

}  // namespace ps::runtime
