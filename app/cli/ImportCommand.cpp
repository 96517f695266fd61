// pipescope-cli import nsys|kineto|torch-csv FILE... --db OUT [--name N]
//   [--align auto|wall|collective|p2p] [--rank FILE=N]... [--rules RULES.json]
// Reads every file, recognises pipeline ops, aligns the ranks' clocks, and only then appends one
// run to OUT: bad input leaves OUT as it was (and creates no file).

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/run/RunPlan.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/import/ImportName.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
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
  runtime::PlanSpec csv;  // torch-csv: costs for the simulated run
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

// The output file is created only for a run that is complete; a file we created for a failed
// write is removed again.
Result<trace::TraceStore> openOutput(const std::string& db, bool& created) {
  created = !std::filesystem::exists(db);
  return trace::TraceStore::open(db, trace::TraceStore::Mode::ReadWrite);
}

void removeIfCreated(const std::string& db, bool created) {
  if (!created) return;
  std::error_code ignored;
  std::filesystem::remove(db, ignored);
}

void printRunLine(trace::TraceStore& store, std::int64_t runId, const std::string& name) {
  auto run = trace::loadRun(store, runId);
  if (!run) return;
  const auto a = trace::analyzeRun(*run);
  std::cout << "run " << runId << ": " << name << ": " << run->opCount() << " ops";
  if (a.step_time_ns) std::cout << ", step " << trace::formatDuration(*a.step_time_ns);
  if (a.bubble_ratio) std::cout << ", bubble " << trace::formatPercent(*a.bubble_ratio);
  std::cout << '\n';
}

int importTorchCsv(ImportCliOptions& o) {
  if (o.files.size() != 1) return fail("import torch-csv: give exactly one CSV file");
  // A torch schedule has no timings: it is simulated with the cost flags given.
  runtime::RunPlanRequest request;
  request.spec = o.csv;
  request.spec.scheduleFile = o.files[0];
  request.backend = runtime::Backend::Sim;
  request.source = "torch-csv";
  request.name = o.name.empty() ? trace::import::defaultImportName(o.format, o.files) : o.name;
  const bool created = !std::filesystem::exists(o.db);
  auto result = runtime::runPlan(request, {o.db});
  if (!result) return fail(result.error());
  for (const auto& note : result->built->notes)
    std::cerr << "pipescope-cli: note: " << note << '\n';
  if (result->status != trace::RunStatus::Complete) {
    result->store.reset();
    removeIfCreated(o.db, created);
    return fail(result->message, kExitRunFailed);
  }
  printRunLine(*result->store, *result->runId, result->name);
  return kExitOk;
}

int importProfiles(const ImportCliOptions& o) {
  trace::import::ImportOptions options;
  options.format = o.format;
  options.name = o.name.empty() ? trace::import::defaultImportName(o.format, o.files) : o.name;
  options.align = trace::import::parseAlignMode(o.align).value_or(trace::import::AlignMode::Auto);
  auto ranks = parseRankMapping(o.ranks);
  if (!ranks) return fail(ranks.error());
  options.explicitRanks = std::move(*ranks);
  if (!o.rules.empty()) {
    auto rules = trace::import::MappingRules::load(o.rules);
    if (!rules) return fail(rules.error());
    options.rulesFile = o.rules;
    options.recognizer = trace::import::OpRecognizer(std::move(*rules));
  }
  for (const auto& [file, rank] : options.explicitRanks)
    if (std::find(o.files.begin(), o.files.end(), file) == o.files.end())
      return fail("--rank " + file + "=" + std::to_string(rank) + ": " + file +
                  " is not one of the files to import");

  auto raws = trace::import::readTraceFiles(o.format, o.files);
  if (!raws) return fail(raws.error());
  auto run = trace::import::assembleImport(std::move(*raws), options);
  if (!run) return fail(run.error());

  bool created = false;
  auto store = openOutput(o.db, created);
  if (!store) return fail(store.error());
  auto runId = trace::import::writeImportedRun(*store, *run);
  if (!runId) {
    removeIfCreated(o.db, created);
    return fail(runId.error(), kExitRunFailed);
  }
  printRunLine(*store, *runId, run->header.info.name);
  std::cout << trace::import::formatImportSummary(*run);
  return kExitOk;
}

}  // namespace

Action addImportCommand(CLI::App& app) {
  auto opt = std::make_shared<ImportCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Import profiles from cluster runs (Nsight Systems, PyTorch profiler) or a torch "
      "pipelining CSV schedule; append one run");
  cmd->add_option("FORMAT", opt->format, "nsys | kineto | torch-csv")
      ->required()
      ->check(CLI::IsMember({"nsys", "kineto", "torch-csv"}));
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
  return [opt]() {
    if (opt->format == "torch-csv") return importTorchCsv(*opt);
    return importProfiles(*opt);
  };
}

}  // namespace ps::cli
