#pragma once
// The plan to re-simulate a run with (issue 31 §3: every knob on an imported run): a sim run's
// own config_json; a cpu or cuda run's with its measured costs (what really ran, not the flags);
// an imported run's fitted plan (fitPlan). What report --sensitivity, explore --from and the
// app's what-ifs start from.

#include <atomic>
#include <string>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"

namespace ps::runtime::fit {

struct RunPlan {
  PlanSpec spec;                   // rebuilds `built`'s plan (an import's: fitted, costs embedded)
  BuiltPlan built;                 // with the costs to simulate
  bool fitted = false;             // the plan was fitted (an imported run)
  std::vector<std::string> notes;  // e.g. "imported run: plan fitted (1f1b, replay -0.1 %)"
};

// Errors say why the run has no plan: its config does not rebuild, or the fit refused (no
// stages, replicated pipelines, ...), or "fit cancelled".
[[nodiscard]] Result<RunPlan> planOfRun(const trace::RunTrace& run,
                                        const std::atomic<bool>* cancel = nullptr);

}  // namespace ps::runtime::fit
