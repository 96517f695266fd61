// pipescope-cli fit FILE [--run N] [--out PLAN.json] [--db OUT]: a plan fitted from a recorded or
// imported run (issue 31 §2), replayed through the simulator to show how well it reproduces it.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "runtime/fit/PlanFit.h"
#include "runtime/run/RunPlan.h"
#include "trace/FileText.h"
#include "trace/TerminalText.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {
namespace {

struct FitCommandOptions {
  std::string file;
  std::optional<std::int64_t> run;
  std::string out;
  std::string db;
  int layersPerStage = 1;
  double wgradShare = 0.5;
  bool noLatencyFit = false;
  bool json = false;
};

// Beside PLAN.json: "PLAN.schedule.csv", named relative to the plan so that both move together.
std::string scheduleFileFor(const std::string& out) {
  std::filesystem::path p(out);
  p.replace_extension(".schedule.csv");
  return p.string();
}

}  // namespace

Action addFitCommand(CLI::App& app) {
  auto opt = std::make_shared<FitCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fit",
      "Fit a plan (schedule, stage costs, links, memory) to a recorded or imported run and "
      "replay it");
  cmd->add_option("FILE", opt->file, "Trace file (.sqlite)")->required();
  cmd->add_option("--run", opt->run, "Run id (default: the latest run in the file)");
  cmd->add_option("--out", opt->out,
                  "Write the fitted plan here (a preset file: sim|run --preset PLAN.json)");
  cmd->add_option("--db", opt->db, "Append the replay of the fitted plan (a sim run) to this file");
  cmd->add_option("--layers-per-stage", opt->layersPerStage,
                  "Spread each stage's cost over K layers, so that boundaries can move inside it")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--wgrad-share", opt->wgradShare,
                  "W's share of a backward recorded whole (B), for what-ifs that split it")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of the text report");
  cmd->add_flag("--no-latency-fit", opt->noLatencyFit,
                "Keep the link latency the transfers give; do not fit it to the step time");
  return [opt]() {
    const InterruptScope interrupt;
    if (!opt->out.empty())
      if (auto ok = trace::checkRegularOrAbsent(opt->out, "--out"); !ok) return fail(ok.error());
    trace::LoadOptions load;
    load.cancel = interrupt.flag();
    auto run = trace::loadRunFromFile(opt->file, opt->run, load);
    if (!run) return fail(run.error());
    for (const auto& warning : run->warnings)
      std::cerr << "pipescope-cli: warning: " << trace::terminalSafe(warning, kErrorLineCap)
                << '\n';
    runtime::fit::FitOptions options;
    options.layersPerStage = opt->layersPerStage;
    options.wgradShare = opt->wgradShare;
    options.fitLatency = !opt->noLatencyFit;
    if (!opt->out.empty()) options.scheduleFile = scheduleFileFor(opt->out);
    auto fit = runtime::fit::fitPlan(*run, options, interrupt.flag());
    if (!fit) return fail(fit.error(), interrupt.interrupted() ? kExitRunFailed : kExitBadInput);
    // Labels and names in it come from the file: each line made safe to print on its own.
    if (opt->json) {
      std::cout << runtime::fit::fitReportJson(*fit);
    } else {
      std::istringstream report(runtime::fit::fitReportText(*fit));
      for (std::string line; std::getline(report, line);)
        std::cout << trace::terminalSafe(line, kErrorLineCap) << '\n';
    }
    if (!opt->out.empty()) {
      runtime::fit::FittedPlan relative = *fit;
      if (!relative.spec.scheduleFile.empty())
        relative.spec.scheduleFile =
            std::filesystem::path(relative.spec.scheduleFile).filename().string();
      const std::string text = runtime::fit::fittedPresetJson(relative, *run, opt->file);
      if (auto ok = trace::writeTextFile(opt->out, text, "fitted plan"); !ok)
        return fail(ok.error());
      (opt->json ? std::cerr : std::cout)
          << "plan written to " << trace::terminalSafe(opt->out)
          << (fit->spec.scheduleFile.empty()
                  ? std::string()
                  : " (its order in " + trace::terminalSafe(fit->spec.scheduleFile) + ")")
          << "\n";
    }
    if (!opt->db.empty()) {
      runtime::RunPlanRequest request;
      request.spec = fit->spec;
      request.backend = runtime::Backend::Sim;
      request.fittedFrom = run->info.id;
      request.name = "fit of run " + std::to_string(run->info.id) + " (" + run->info.name + ")";
      runtime::RunControl control;
      control.cancel = interrupt.flag();
      auto result = runtime::runPlan(request, {opt->db}, control);
      if (!result) return fail(result.error());
      if (result->status != trace::RunStatus::Complete || !result->runId)
        return fail("replay not written: " + result->message, kExitRunFailed);
      (opt->json ? std::cerr : std::cout) << "replay written as run " << *result->runId << " of "
                                          << trace::terminalSafe(opt->db) << "\n";
    }
    return kExitOk;
  };
}

}  // namespace ps::cli
