#include "runtime/plan/Plan.h"

#include <algorithm>

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

std::vector<int> peakActivationsInFlight(const Plan& plan) {
  std::vector<int> peak(static_cast<std::size_t>(std::max(plan.numStages, 0)), 0);
  if (plan.forwardOnly) return peak;  // nothing waits for a backward: F's activations go with it
  std::vector<int> held(peak.size(), 0);
  for (const auto& program : plan.programs) {
    std::fill(held.begin(), held.end(), 0);
    for (const Action& a : program) {
      if (a.stage < 0 || a.stage >= plan.numStages) continue;
      const auto s = static_cast<std::size_t>(a.stage);
      if (a.kind == OpKind::F) {
        peak[s] = std::max(peak[s], ++held[s]);
      } else if (a.kind == OpKind::B || a.kind == OpKind::W) {
        held[s] = std::max(held[s] - 1, 0);
      }
    }
  }
  return peak;
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
