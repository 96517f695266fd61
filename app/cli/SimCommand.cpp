// pipescope-cli sim PLAN --db FILE: simulate a plan and append the run (DESIGN §5).

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "app/cli/WrittenRun.h"
#include "runtime/run/RunPlan.h"
#include "trace/TerminalText.h"
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
    // Ctrl-C or SIGTERM: the simulation or the write stops, the run ends 'cancelled' (or is not
    // written) and the store closes in rollback mode.
    const InterruptScope interrupt;
    runtime::RunPlanRequest request;
    auto spec = planSpec(*opt);
    if (!spec) return fail(spec.error());
    request.spec = std::move(*spec);
    request.backend = runtime::Backend::Sim;
    request.name = opt->name;
    runtime::RunControl control;
    control.cancel = interrupt.flag();
    // Every check (plan, memory caps) comes before the file is touched.
    auto result = runtime::runPlan(request, {opt->db}, control);
    if (!result) return fail(result.error());
    if (result->built)
      for (const auto& note : result->built->notes)
        std::cerr << "pipescope-cli: note: " << trace::terminalSafe(note, 1000) << '\n';
    if (result->status == trace::RunStatus::Cancelled)
      return fail((result->runId ? "run " + std::to_string(*result->runId) + " " : "run ") +
                      "cancelled: " + result->message,
                  kExitRunFailed);
    if (result->status != trace::RunStatus::Complete) return fail(result->message, kExitRunFailed);
    // The summary reads the run back; an interrupt now leaves the complete run as it is.
    return summariseWrittenRun(
        *result->store, *result->runId, interrupt,
        [&](const trace::RunTrace& run, const trace::RunAnalysis& a) {
          std::cout << "run " << run.info.id << ": " << trace::terminalSafe(result->name)
                    << ": step " << (a.step_time_ns ? trace::formatDuration(*a.step_time_ns) : "-")
                    << ", bubble "
                    << (a.bubble_ratio ? trace::formatPercent(*a.bubble_ratio) : "-");
          if (a.steady_bubble_ratio)
            std::cout << ", steady " << trace::formatPercent(*a.steady_bubble_ratio);
          std::cout << ", " << run.opCount() << " ops\n";
        });
  };
}

}  // namespace ps::cli
