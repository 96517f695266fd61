#pragma once
// The plans whose check on every knob change must stay well under the 50 ms a GUI may freeze:
// plans at the full-check limits and larger ones that get the cheap checks only. Shared by the
// panel test (a generous bound that catches a check building a large plan in bulk) and
// bench_app_latency (the 50 ms goal, in Release).

#include <string>
#include <vector>

#include "runtime/run/RunPlan.h"
#include "ui/PlanPanelCheck.h"

namespace ps::ui::test_plans {

struct PlanCheckCase {
  const char* schedule;
  int p, v, m, layers;

  std::string name() const {
    return std::string(schedule) + " p=" + std::to_string(p) + " v=" + std::to_string(v) +
           " m=" + std::to_string(m) + " layers=" + std::to_string(layers);
  }

  runtime::RunPlanRequest request() const {
    runtime::RunPlanRequest r;
    r.spec.schedule = schedule;
    r.spec.stages = p;
    r.spec.chunks = v;
    r.spec.microbatches = m;
    if (layers) r.spec.layers = layers;
    r.spec.steps = 100;
    return r;
  }
};

inline std::vector<PlanCheckCase> planCheckCases() {
  const int m = static_cast<int>(kFullCheckLimit / 8);
  return {{"1f1b", 8, 1, m, 0},     {"interleaved-1f1b", 4, 2, m, 0}, {"zb-h1", 8, 1, m, 0},
          {"zb-v", 4, 2, m, 0},     {"1f1b", 16, 1, 64, 350},  // 16 · 350² ≈ kPartitionLimit
          {"1f1b", 8, 1, m, 4096},     // partition too large: left to the run
          {"1f1b", 128, 1, 4096, 0}};  // plan too large: left to the run
}

}  // namespace ps::ui::test_plans
