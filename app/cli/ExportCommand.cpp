// pipescope-cli export torch-csv|chrome FILE [--run ID] --out PATH [--with-comms]
// torch-csv rebuilds each rank's action order from the recorded ops of the run's first step;
// chrome writes Chrome trace event JSON for Perfetto / chrome://tracing.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/plan/TorchCsv.h"
#include "trace/export/ChromeTraceExport.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::string file;
  std::optional<std::int64_t> run;
  std::string out;
  bool withComms = false;
};

bool exportable(trace::OpKind k, bool withComms) {
  using trace::OpKind;
  if (k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W) return true;
  return withComms && (trace::isSend(k) || trace::isRecv(k));
}

// Per rank, the actions of the first step in start order (compute before comm on ties).
std::vector<std::vector<runtime::Action>> programsOf(const trace::RunTrace& run, bool withComms) {
  std::vector<std::vector<runtime::Action>> programs(run.ranks.size());
  int firstStep = INT32_MAX;
  for (const auto& r : run.ranks)
    for (const auto& lane : r.lanes)
      for (auto s : lane.step)
        firstStep = std::min(firstStep, s);
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    struct Item {
      std::int64_t start;
      int order;
      runtime::Action action;
    };
    std::vector<Item> items;
    for (int l = 0; l < trace::kLaneCount; ++l) {
      const auto& lane = run.ranks[r].lanes[l];
      for (std::size_t i = 0; i < lane.size(); ++i) {
        if (lane.step[i] != firstStep || !exportable(lane.kind[i], withComms)) continue;
        if (lane.stage[i] < 0 || lane.microbatch[i] < 0) continue;
        items.push_back(
            {lane.start[i], l, {lane.kind[i], lane.stage[i], lane.microbatch[i], 0, lane.peer[i]}});
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return a.start != b.start ? a.start < b.start : a.order < b.order;
    });
    for (auto& it : items)
      programs[r].push_back(it.action);
  }
  return programs;
}

}  // namespace

Action addExportCommand(CLI::App& app) {
  auto opt = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Export a run: torch-csv (schedule) or chrome (Perfetto / chrome://tracing JSON)");
  cmd->add_option("FORMAT", opt->format, "torch-csv | chrome")
      ->required()
      ->check(CLI::IsMember({"torch-csv", "chrome"}));
  cmd->add_option("FILE", opt->file, "Trace file (.sqlite)")->required();
  cmd->add_option("--run", opt->run, "Run id (default: the latest run)");
  cmd->add_option("--out", opt->out, "Output path")->required();
  cmd->add_flag("--with-comms", opt->withComms, "torch-csv: include SEND/RECV actions");
  return [opt]() {
    auto run = trace::loadRunFromFile(opt->file, opt->run);
    if (!run) return fail(run.error());
    if (opt->format == "chrome") {
      auto stats = trace::writeChromeTraceFile(*run, opt->out);
      if (!stats) return fail(stats.error());
      std::cout << "wrote " << stats->events << " events, " << stats->flows
                << " send->receive flows on " << run->ranks.size() << " ranks to " << opt->out
                << '\n';
      return kExitOk;
    }
    const auto programs = programsOf(*run, opt->withComms);
    const std::string text = runtime::writeTorchCsvComms(programs);
    if (auto s = runtime::writeTorchCsvFile(opt->out, text); !s) return fail(s.error());
    std::size_t actions = 0;
    for (const auto& p : programs)
      actions += p.size();
    std::cout << "wrote " << actions << " actions on " << programs.size() << " ranks to "
              << opt->out << '\n';
    return kExitOk;
  };
}

}  // namespace ps::cli
