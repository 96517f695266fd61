// pipescope-cli sim PLAN --db FILE: simulate a plan and append the run (DESIGN §5).

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "runtime/run/RunPlan.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {

Action addSimCommand(CLI::App& app) {
  auto opt = std::make_shared<PlanOptions>();
  CLI::App* cmd =
      app.add_subcommand("sim", "Simulate a schedule with a cost model; append the run");
  addPlanOptions(*cmd, *opt);
  return [opt]() {
    runtime::RunPlanRequest request;
    request.spec = planSpec(*opt);
    request.backend = runtime::Backend::Sim;
    request.name = opt->name;
    // Every check (plan, memory caps) comes before the file is touched.
    auto result = runtime::runPlan(request, {opt->db});
    if (!result) return fail(result.error());
    for (const auto& note : result->built->notes)
      std::cerr << "pipescope-cli: note: " << note << '\n';
    if (result->status != trace::RunStatus::Complete) return fail(result->message, kExitRunFailed);
    auto run = trace::loadRun(*result->store, *result->runId);
    if (!run) return fail(run.error(), kExitRunFailed);
    const auto a = trace::analyzeRun(*run);
    std::cout << "run " << *result->runId << ": " << result->name << ": step "
              << (a.step_time_ns ? trace::formatDuration(*a.step_time_ns) : "-") << ", bubble "
              << (a.bubble_ratio ? trace::formatPercent(*a.bubble_ratio) : "-");
    if (a.steady_bubble_ratio)
      std::cout << ", steady " << trace::formatPercent(*a.steady_bubble_ratio);
    std::cout << ", " << run->opCount() << " ops\n";
    return kExitOk;
  };
}

}  // namespace ps::cli
