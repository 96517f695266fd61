// pipescope-cli report FILE [--run ID] [--json]

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "runtime/run/RunConfig.h"
#include "runtime/run/Sensitivity.h"
#include "trace/TerminalText.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {

namespace {
struct ReportOptions {
  std::string file;
  std::optional<std::int64_t> run;
  bool json = false;
  bool sensitivity = false;
};

// The run's plan rebuilt from its config_json and re-simulated stage by stage and kind by kind.
// Refused past kMaxSensitivityActions before anything runs; Ctrl-C stops it ("cancelled").
Result<std::vector<trace::StepSpeedup>> sensitivityOf(const trace::RunTrace& run,
                                                      const std::atomic<bool>* cancel) {
  const std::string what = "--sensitivity: run " + std::to_string(run.info.id);
  if (run.info.source != "sim" && run.info.source != "cpu" && run.info.source != "cuda")
    return Error{what + " was imported (source " + run.info.source +
                 "): there is no plan to re-simulate"};
  auto request = runtime::requestFromConfigJson(run.info.config_json);
  if (!request) return Error{what + ": " + request.error()};
  auto built = runtime::buildPlan(request->spec);
  if (!built) return Error{what + ": " + built.error()};
  // A run that really ran: its measured times, not the flags' (the simulator's are its own).
  if (run.info.source != "sim") runtime::useMeasuredCosts(*built, run);
  auto rows = runtime::stepSensitivity(*built, 0.1, cancel);
  if (!rows) return Error{what + ": " + rows.error()};
  return rows;
}

}  // namespace

Action addReportCommand(CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print step time, bubble (by cause), critical path, memory and links of a run");
  cmd->add_option("FILE", opt->file, "Trace file (.sqlite)")->required();
  cmd->add_option("--run", opt->run, "Run id (default: the latest run in the file)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of a table");
  cmd->add_flag("--sensitivity", opt->sensitivity,
                "Re-simulate the run's plan with each op kind of each stage 10 % faster and "
                "rank what shortens the step most (sim, cpu and cuda runs)");
  return [opt]() {
    trace::LoadOptions load;
    auto run = trace::loadRunFromFile(opt->file, opt->run, load);
    if (!run) return fail(run.error());
    // What the load left out or corrected (times beyond ±2^52 ns, a header's rank count the
    // data does not hold, ...): said once on stderr, so the numbers are never silently partial.
    for (const auto& warning : run->warnings)
      std::cerr << "pipescope-cli: warning: " << trace::terminalSafe(warning, kErrorLineCap)
                << '\n';
    // The table first: a run too large for it is refused before the analysis is spent on it.
    std::vector<trace::StepSpeedup> table;
    if (opt->sensitivity) {
      const InterruptScope interrupt;
      auto rows = sensitivityOf(*run, interrupt.flag());
      if (!rows)
        return fail(rows.error(), interrupt.interrupted() ? kExitRunFailed : kExitBadInput);
      table = std::move(*rows);
    }
    const trace::RunAnalysis analysis = trace::analyzeRun(*run);
    const trace::RunExplanation why = trace::explainRun(*run);
    const auto* sensitivity = opt->sensitivity ? &table : nullptr;
    std::cout << (opt->json ? trace::reportJson(analysis, &why, sensitivity)
                            : trace::reportText(analysis, &why, sensitivity));
    return kExitOk;
  };
}

}  // namespace ps::cli
