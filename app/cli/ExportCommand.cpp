// pipescope-cli export torch-csv|chrome FILE [--run ID] --out PATH [--with-comms]
// torch-csv rebuilds each rank's action order from the recorded ops of the run's first step, and
// the overlapped pairs (DualPipeV's "(0F7;7I0)OVERLAP_F_B") from the run's plan, which the
// recorded ops cannot show (a pair runs back to back); chrome writes Chrome trace event JSON for
// Perfetto / chrome://tracing.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/plan/Validator.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunConfig.h"
#include "trace/TerminalText.h"
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

// An action as the recorded ops know it (no step, no peer): what pairs are matched on.
using ActionKey = std::tuple<trace::OpKind, int, int>;
ActionKey keyOf(const runtime::Action& a) {
  return {a.kind, a.stage, a.microbatch};
}

// Per rank, each overlapped pair of the run's plan (first action -> its partner), from the
// run's config_json. Empty when the run has no plan to rebuild (an nsys or kineto import);
// `note` says why when it has one that could not be rebuilt (a schedule file gone).
std::vector<std::map<ActionKey, ActionKey>> overlapPairs(const trace::RunTrace& run,
                                                         const std::string& traceFile,
                                                         std::string& note) {
  std::vector<std::map<ActionKey, ActionKey>> pairs(run.ranks.size());
  auto request = runtime::requestFromConfigJson(run.info.config_json);
  if (!request) return pairs;
  auto built = runtime::buildPlan(request->spec);
  // A schedule file named relative to where it was imported: try beside the trace file too.
  const std::filesystem::path file(request->spec.scheduleFile);
  if (!built && !file.empty() && file.is_relative()) {
    auto beside = request->spec;
    beside.scheduleFile = (std::filesystem::path(traceFile).parent_path() / file).string();
    if (auto again = runtime::buildPlan(beside)) built = std::move(again);
  }
  if (!built) {
    note = "the run's plan could not be rebuilt (" + built.error() +
           "): overlapped pairs, if it has any, are written as two cells";
    return pairs;
  }
  const auto& programs = built->plan.programs;
  for (std::size_t r = 0; r < programs.size() && r < pairs.size(); ++r)
    for (std::size_t i = 0; i + 1 < programs[r].size(); ++i)
      if (programs[r][i].overlapNext && programs[r][i].step == 0)
        pairs[r][keyOf(programs[r][i])] = keyOf(programs[r][i + 1]);
  return pairs;
}

// Marks each recorded pair of the plan as overlapped: the first action's partner is the next
// compute action of the rank; it moves up next to it (past any send or receive between them) so
// that the two share one cell.
void markOverlaps(std::vector<runtime::Action>& program,
                  const std::map<ActionKey, ActionKey>& pairs) {
  if (pairs.empty()) return;
  for (std::size_t i = 0; i < program.size(); ++i) {
    const auto pair = pairs.find(keyOf(program[i]));
    if (pair == pairs.end()) continue;
    std::size_t j = i + 1;
    while (j < program.size() && !trace::isCompute(program[j].kind))
      ++j;
    if (j == program.size() || keyOf(program[j]) != pair->second) continue;
    std::rotate(program.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                program.begin() + static_cast<std::ptrdiff_t>(j),
                program.begin() + static_cast<std::ptrdiff_t>(j) + 1);
    program[i].overlapNext = true;
    ++i;  // an action belongs to at most one pair
  }
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
    auto programs = programsOf(*run, opt->withComms);
    std::size_t actions = 0;
    for (const auto& p : programs)
      actions += p.size();
    // A run of kernels and ranges with no stage and micro-batch (an nsys or kineto import)
    // has no schedule to write: an empty CSV would read back as no plan at all.
    if (actions == 0)
      return failPrintable(
          "run " + std::to_string(run->info.id) + " \"" + trace::terminalSafe(run->info.name) +
          "\" has no pipeline ops (F, B, I or W with a stage and a micro-batch): nothing to "
          "export as torch-csv; " +
          trace::terminalSafe(opt->out, kErrorLineCap) + " not written");
    std::string note;
    const auto pairs = overlapPairs(*run, opt->file, note);
    if (!note.empty())
      std::cerr << "pipescope-cli: note: " << trace::terminalSafe(note, 1000) << '\n';
    std::size_t overlapped = 0;
    for (std::size_t r = 0; r < programs.size() && r < pairs.size(); ++r) {
      markOverlaps(programs[r], pairs[r]);
      for (const auto& a : programs[r])
        overlapped += a.overlapNext ? 1 : 0;
    }
    const std::string text = runtime::writeTorchCsvComms(programs);
    // Only what `import torch-csv` reads back (issue 30, item 19): a run of an import can hold
    // what no schedule does (two threads running the same stage on one rank).
    auto back = runtime::parseTorchCsv(text, "the exported schedule");
    std::string refused = back ? "" : back.error();
    if (back)
      if (auto graph = runtime::validatePlan(back->plan); !graph) refused = graph.error();
    if (!refused.empty())
      return fail("run " + std::to_string(run->info.id) +
                  " is not a schedule torch-csv can hold (" + refused + "); " + opt->out +
                  " not written");
    if (auto s = runtime::writeTorchCsvFile(opt->out, text); !s) return fail(s.error());
    std::cout << "wrote " << actions << " actions on " << programs.size() << " ranks";
    if (overlapped) std::cout << " (" << overlapped << " overlapped pairs)";
    std::cout << " to " << opt->out << '\n';
    return kExitOk;
  };
}

}  // namespace ps::cli
