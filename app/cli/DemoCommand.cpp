// pipescope-cli demo --db FILE: appends the demo run, the 1f1b preset simulated (the app's demo
// is the same run), so a fresh checkout has something to report and open before any schedule is
// chosen. --stages, --microbatches and --steps resize it; its bubble stays (p-1)/(m+p-1).

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"

namespace ps::cli {

namespace {
struct DemoOptions {
  std::string db;
  std::optional<int> stages, microbatches, steps;
};
}  // namespace

Action addDemoCommand(CLI::App& app) {
  auto opt = std::make_shared<DemoOptions>();
  CLI::App* cmd =
      app.add_subcommand("demo", std::string("Append the demo run (the ") + runtime::kDemoPreset +
                                     " preset, simulated) to a trace file");
  cmd->add_option("--db", opt->db, "Trace file to append to")->required();
  cmd->add_option("--stages", opt->stages, "Pipeline stages (ranks)")->check(CLI::Range(1, 4096));
  cmd->add_option("--microbatches", opt->microbatches, "Micro-batches")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--steps", opt->steps, "Training steps")->check(CLI::Range(1, 100000));
  return [opt]() {
    auto made = runtime::presetRequest(runtime::kDemoPreset);
    if (!made) return fail(made.error());
    runtime::RunPlanRequest request = std::move(*made);
    if (opt->stages) request.spec.stages = opt->stages;
    if (opt->microbatches) request.spec.microbatches = opt->microbatches;
    if (opt->steps) request.spec.steps = *opt->steps;
    auto result = runtime::runPlan(request, {opt->db});
    if (!result) return fail(result.error());
    if (result->status != trace::RunStatus::Complete) return fail(result->message, kExitRunFailed);
    std::cout << "run " << *result->runId << " written to " << opt->db << '\n';
    return kExitOk;
  };
}

}  // namespace ps::cli
