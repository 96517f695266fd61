// pipescope-cli sim PLAN --db FILE: simulate a plan and append the run (DESIGN §5).

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "runtime/sim/SimWriter.h"
#include "runtime/sim/Simulator.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::cli {

Action addSimCommand(CLI::App& app) {
  auto opt = std::make_shared<PlanOptions>();
  CLI::App* cmd =
      app.add_subcommand("sim", "Simulate a schedule with a cost model; append the run");
  addPlanOptions(*cmd, *opt);
  return [opt]() {
    auto built = buildPlanFromOptions(*opt);
    if (!built) return fail(built.error());
    for (const auto& note : built->notes)
      std::cerr << "pipescope-cli: note: " << note << '\n';
    auto result = runtime::simulate(built->plan, built->graph, built->cost);
    if (!result) return fail(result.error(), kExitRunFailed);
    if (auto caps = runtime::checkMemoryCaps(built->cost, result->peakMemory); !caps)
      return fail(caps.error());
    // Only now touch the file: every check above leaves it as it was.
    auto store = trace::TraceStore::open(opt->db, trace::TraceStore::Mode::ReadWrite);
    if (!store) return fail(store.error());
    const std::string name = opt->name.empty() ? runtime::planRunName(built->plan) : opt->name;
    auto runId = runtime::writeSimulation(*store, built->plan, built->cost, *result, name,
                                          built->configJson);
    if (!runId) return fail(runId.error(), kExitRunFailed);
    auto run = trace::loadRun(*store, *runId);
    if (!run) return fail(run.error(), kExitRunFailed);
    const auto a = trace::analyzeRun(*run);
    std::cout << "run " << *runId << ": " << name << ": step "
              << (a.step_time_ns ? trace::formatDuration(*a.step_time_ns) : "-") << ", bubble "
              << (a.bubble_ratio ? trace::formatPercent(*a.bubble_ratio) : "-");
    if (a.steady_bubble_ratio)
      std::cout << ", steady " << trace::formatPercent(*a.steady_bubble_ratio);
    std::cout << ", " << run->opCount() << " ops\n";
    return kExitOk;
  };
}

}  // namespace ps::cli
