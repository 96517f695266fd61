// pipescope-cli report FILE [--run ID] [--json]

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
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
};
}  // namespace

Action addReportCommand(CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print step time, bubble (by cause), critical path, memory and links of a run");
  cmd->add_option("FILE", opt->file, "Trace file (.sqlite)")->required();
  cmd->add_option("--run", opt->run, "Run id (default: the latest run in the file)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of a table");
  return [opt]() {
    trace::LoadOptions load;
    auto run = trace::loadRunFromFile(opt->file, opt->run, load);
    if (!run) return fail(run.error());
    // What the load left out or corrected (times beyond ±2^52 ns, a header's rank count the
    // data does not hold, ...): said once on stderr, so the numbers are never silently partial.
    for (const auto& warning : run->warnings)
      std::cerr << "pipescope-cli: warning: " << trace::terminalSafe(warning, kErrorLineCap)
                << '\n';
    const trace::RunAnalysis analysis = trace::analyzeRun(*run);
    const trace::RunExplanation why = trace::explainRun(*run);
    std::cout << (opt->json ? trace::reportJson(analysis, &why)
                            : trace::reportText(analysis, &why));
    return kExitOk;
  };
}

}  // namespace ps::cli
