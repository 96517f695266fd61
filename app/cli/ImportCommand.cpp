// pipescope-cli import FORMAT FILE... --db OUT [--name N] [--align auto|wall|collective|p2p]
//   [--rank FILE=N]... [--rules RULES.json] [--threads-as-ranks] [torch-csv cost flags]
// FORMAT is any entry of trace/import/ImportFormats.h. The import itself is runtime::importRun
// (runtime/run/ImportRun.h), the app's too: this file parses the flags and prints the result.
// Bad input or Ctrl-C leaves no run of ours in OUT, and a file it created is removed again
// unless another process appended a run or opened it meanwhile.

#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "app/cli/WrittenRun.h"
#include "runtime/fit/ScheduleMatch.h"
#include "runtime/run/ImportRun.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/import/ClockAlignment.h"
#include "trace/import/GzipLimits.h"
#include "trace/import/ImportFormats.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::cli {
namespace {

struct ImportCliOptions {
  std::string format;
  std::vector<std::string> files;
  std::string db;
  std::string name;
  std::string align = "auto";
  std::vector<std::string> ranks;
  std::string rules;
  bool threadsAsRanks = false;
  runtime::PlanSpec csv;  // schedules: costs for the simulated run
};

Result<std::map<std::string, int>> parseRankMapping(const std::vector<std::string>& items) {
  std::map<std::string, int> out;
  for (const auto& item : items) {
    const auto eq = item.rfind('=');
    int rank = -1;
    try {
      if (eq != std::string::npos) rank = std::stoi(item.substr(eq + 1));
    } catch (...) {
      rank = -1;
    }
    if (eq == std::string::npos || eq == 0 || rank < 0)
      return Error{"--rank " + item + ": expected FILE=N with N a rank number >= 0"};
    out[item.substr(0, eq)] = rank;
  }
  return out;
}

// What Ctrl-C during an import prints: the file holds nothing of ours (a file we created is
// gone again unless another writer uses it too).
int cancelled(const ImportCliOptions& o) {
  return fail(o.db + ": no run written: import cancelled", kExitRunFailed);
}

// Which generator's order the imported ops follow (imports never named it) and how to fit it.
void printSchedule(const trace::RunTrace& run, const trace::RunAnalysis& a, const std::string& db) {
  std::vector<int> steps;
  for (const auto& s : a.steps)
    steps.push_back(s.step);
  auto program = runtime::fit::readRecordedProgram(run, steps);
  if (!program) return;  // no stages or micro-batches to read an order from: nothing to name
  const auto match = runtime::fit::matchSchedule(*program);
  std::cout << "schedule: "
            << (match.name.empty()
                    ? "an order no generator makes" + (match.nearest.empty()
                                                           ? std::string()
                                                           : " (nearest " + match.nearest + ")")
                    : match.name)
            << " (P " << program->ranks << ", M " << program->microbatches << ", V "
            << program->chunks << "); pipescope-cli fit " << trace::terminalSafe(db) << " --run "
            << run.info.id << " fits a plan to it\n";
}

int printRunLine(trace::TraceStore& store, const runtime::ImportRunResult& imported,
                 const InterruptScope& interrupt, const std::string& db) {
  return summariseWrittenRun(store, *imported.runId, interrupt,
                             [&](const trace::RunTrace& run, const trace::RunAnalysis& a) {
                               std::cout << "run " << run.info.id << ": "
                                         << trace::terminalSafe(imported.name) << ": "
                                         << run.opCount() << " ops";
                               if (a.step_time_ns)
                                 std::cout << ", step " << trace::formatDuration(*a.step_time_ns);
                               if (a.bubble_ratio)
                                 std::cout << ", bubble " << trace::formatPercent(*a.bubble_ratio);
                               std::cout << '\n';
                               // A simulated schedule follows its file's order: there is no
                               // recorded order to name.
                               if (!imported.simulated) printSchedule(run, a, db);
                             });
}

// The flags as runtime::importRun takes them; --rank FILE=N is parsed here, checked there.
Result<runtime::ImportRunRequest> importRequest(const ImportCliOptions& o) {
  runtime::ImportRunRequest request;
  request.format = o.format;
  request.files = o.files;
  request.name = o.name;
  request.align = trace::import::parseAlignMode(o.align).value_or(trace::import::AlignMode::Auto);
  auto ranks = parseRankMapping(o.ranks);
  if (!ranks) return std::move(ranks).takeError();
  request.explicitRanks = std::move(*ranks);
  request.rulesFile = o.rules;
  request.threadsAsRanks = o.threadsAsRanks;
  request.simulation = o.csv;
  return request;
}

// Ctrl-C or SIGTERM: reading, assembly, simulation or writing stops at its next poll and the
// file holds no run of this import.
int runImport(const ImportCliOptions& o, const InterruptScope& interrupt) {
  auto request = importRequest(o);
  if (!request) return fail(request.error());
  auto imported = runtime::importRun(*request, {o.db}, {}, interrupt.flag());
  if (!imported) return interrupt.interrupted() ? cancelled(o) : fail(imported.error());
  for (const auto& note : imported->notes)
    std::cerr << "pipescope-cli: note: " << trace::terminalSafe(note, kErrorLineCap) << '\n';
  for (const auto& warning : imported->warnings)
    std::cerr << "pipescope-cli: warning: " << trace::terminalSafe(warning, kErrorLineCap) << '\n';
  if (!imported->runId)
    return interrupt.interrupted() ? cancelled(o) : fail(imported->failure, kExitRunFailed);
  if (const int rc = printRunLine(*imported->store, *imported, interrupt, o.db); rc != kExitOk)
    return rc;
  // A profile's recognition summary; a simulated schedule printed its notes above.
  if (!imported->simulated) std::cout << imported->summary;
  return kExitOk;
}

std::vector<std::string> formatNames() {
  std::vector<std::string> names;
  for (const auto& f : trace::import::importFormats())
    names.emplace_back(f.name);
  return names;
}

}  // namespace

Action addImportCommand(CLI::App& app) {
  auto opt = std::make_shared<ImportCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Import the profiles of cluster runs or a schedule of another tool (FORMAT); append one "
      "run");
  std::string formats;
  for (const auto& f : trace::import::importFormats())
    formats += (formats.empty() ? "" : "\n") + std::string(f.name) + ": " + std::string(f.label);
  cmd->add_option("FORMAT", opt->format, formats)->required()->check(CLI::IsMember(formatNames()));
  cmd->add_option("FILE", opt->files, "Files to import (one per rank, or one with every rank)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--db", opt->db, "Trace file to append the run to")->required();
  cmd->add_option("--name", opt->name, "Run name");
  cmd->add_option("--align", opt->align,
                  "Clock alignment across ranks: auto (p2p, else collective, else wall), wall, "
                  "collective, p2p")
      ->check(CLI::IsMember({"auto", "wall", "collective", "p2p"}));
  cmd->add_option("--rank", opt->ranks, "FILE=N: the rank of a file (repeatable)");
  cmd->add_option("--rules", opt->rules, "Label mapping rules JSON (regex -> kind, stage, mb)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--threads-as-ranks", opt->threadsAsRanks,
                "One process ran every stage on its own thread: each thread (or GPU stream) with "
                "recognised ops becomes a rank");
  auto& u = opt->csv.uniform;
  cmd->add_option("--fwd-us", u.fwdUs, "torch-csv: one layer's forward time (µs)");
  cmd->add_option("--bwd-us", u.bwdUs, "torch-csv: one layer's whole backward I+W (µs)");
  cmd->add_option("--wgrad-us", u.wgradUs, "torch-csv: the W part of --bwd-us (µs)");
  cmd->add_option("--act-mb", u.actMb, "torch-csv: activations per layer and micro-batch (MiB)");
  cmd->add_option("--link-gbps", u.linkGbps, "torch-csv: link bandwidth (Gb/s)");
  cmd->add_option("--link-latency-us", u.linkLatencyUs, "torch-csv: link latency (µs)");
  cmd->add_option("--costs", opt->csv.costsFile, "torch-csv: per-layer cost JSON")
      ->check(CLI::ExistingFile);
  cmd->add_option("--steps", opt->csv.steps, "torch-csv: steps to simulate")
      ->check(CLI::Range(1, 100000));
  using trace::import::GzipLimits;
  cmd->footer("Gzip input may inflate to " + std::to_string(GzipLimits::kDefaultMaxRatio) +
              " times its size (past " + trace::formatBytes(GzipLimits::kDefaultRatioFloorBytes) +
              ") and to " + trace::formatBytes(GzipLimits::kDefaultMaxBytes) +
              " at most; PIPESCOPE_GZIP_MAX_RATIO=N (0: no ratio limit) and "
              "PIPESCOPE_GZIP_MAX_BYTES=SIZE (e.g. 64G) change that.");
  return [opt]() {
    const InterruptScope interrupt;
    return runImport(*opt, interrupt);
  };
}

}  // namespace ps::cli
