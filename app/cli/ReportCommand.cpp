// pipescope-cli report FILE [--run ID] [--json] [--sensitivity] [--steps] [--slack]

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "runtime/fit/PlanOfRun.h"
#include "runtime/run/OrderMoveSim.h"
#include "runtime/run/Sensitivity.h"
#include "trace/TerminalText.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"
#include "trace/analysis/SlackFormat.h"
#include "trace/analysis/StepsFormat.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {

namespace {
struct ReportOptions {
  std::string file;
  std::optional<std::int64_t> run;
  bool json = false;
  bool sensitivity = false;
  bool steps = false;
  bool slack = false;
};

// The run's plan (its config_json; an imported run's fitted plan, said on stderr) re-simulated
// stage by stage and kind by kind. Refused past kMaxSensitivityActions before anything runs;
// Ctrl-C stops it ("cancelled").
Result<std::vector<trace::StepSpeedup>> sensitivityOf(const trace::RunTrace& run,
                                                      const std::atomic<bool>* cancel) {
  auto plan = runtime::fit::planOfRun(run, cancel);
  if (!plan) return Error{"--sensitivity: " + plan.error()};
  for (const auto& note : plan->notes)
    std::cerr << "pipescope-cli: note: " << trace::terminalSafe(note, kErrorLineCap) << '\n';
  auto rows = runtime::stepSensitivity(plan->built, 0.1, cancel);
  if (!rows)
    return Error{"--sensitivity: run " + std::to_string(run.info.id) + ": " + rows.error()};
  return rows;
}

// The order doctor's moves re-simulated on the run's plan where it has one (its config, or a
// plan fitted to an import); left re-timed from the trace where it has none.
void resimulateOrderFixes(const trace::RunTrace& run, trace::RunExplanation& why,
                          const std::atomic<bool>* cancel) {
  if (why.orderFixes.empty()) return;
  auto plan = runtime::fit::planOfRun(run, cancel);
  if (!plan) return;
  std::vector<runtime::OrderMoveActions> moves;
  for (const auto& f : why.orderFixes)
    moves.push_back(runtime::orderMoveActions(run, f.move.move, f.move.before));
  auto gains = runtime::resimulateOrderMoves(plan->built, moves, cancel);
  if (!gains) return;
  for (std::size_t i = 0; i < gains->size(); ++i)
    if (const auto& gain = (*gains)[i]) {
      why.orderFixes[i].move.gainNs = *gain;
      why.orderFixes[i].resimulated = true;
    }
  std::stable_sort(why.orderFixes.begin(), why.orderFixes.end(),
                   [](const auto& a, const auto& b) { return a.move.gainNs > b.move.gainNs; });
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
  cmd->add_flag("--steps", opt->steps,
                "Per step: time, bubble and idle causes (median / p90 / max over steps), and "
                "the straggler table: who finished last, culprits and victims");
  cmd->add_flag("--slack", opt->slack,
                "How much longer each op could take before its step ends later: the least per "
                "stage and kind (0: on the critical path); with --json every op's slack_ns");
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
    trace::RunExplanation why = trace::explainRun(*run);
    {
      const InterruptScope interrupt;
      resimulateOrderFixes(*run, why, interrupt.flag());
    }
    const auto* sensitivity = opt->sensitivity ? &table : nullptr;
    // Who is slow: always judged, so that a plain report names a rank that is often the culprit.
    std::vector<int> steps;
    for (const auto& s : analysis.steps)
      steps.push_back(s.step);
    const trace::StepGraph graph(*run);
    if (opt->sensitivity) {
      // Why a speed-up saves nothing: none of its ops is on the critical path.
      const auto& slack = why.slack.leastByStageKind;
      for (trace::StepSpeedup& row : table)
        if (const auto it = slack.find({row.stage, row.kind}); it != slack.end())
          row.leastSlackNs = it->second;
    }
    const auto stragglers = trace::findStragglers(graph, why.bubbles, steps);
    if (opt->json) {
      std::string out = trace::reportJson(analysis, &why, sensitivity);
      std::string flagged = "[";
      for (int r : stragglers.flaggedRanks())
        flagged += (flagged.size() > 1 ? ", " : "") + std::to_string(r);
      out = trace::withJsonMember(out, "straggler_ranks", flagged + "]");
      if (opt->steps)
        out = trace::withJsonMember(
            out, "steps_detail",
            trace::stepsJson(trace::buildStepTable(analysis, why.bubbles), stragglers));
      if (opt->slack) out = trace::withJsonMember(out, "slack", trace::slackJson(*run, why.slack));
      std::cout << out;
      return kExitOk;
    }
    std::cout << trace::reportText(analysis, &why, sensitivity)
              << trace::flaggedStragglersLine(stragglers);
    if (opt->steps)
      std::cout << trace::stepsText(trace::buildStepTable(analysis, why.bubbles), stragglers);
    if (opt->slack) std::cout << trace::slackText(*run, why.slack);
    return kExitOk;
  };
}

}  // namespace ps::cli
