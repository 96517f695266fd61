// pipescope-cli compare FILE[:RUN] FILE[:RUN] [--json] [--ops]
// pipescope-cli compare FILE RUN_A RUN_B [--json] [--ops]

#include <CLI/CLI.hpp>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/run/RunComparison.h"
#include "trace/Result.h"
#include "trace/TerminalText.h"
#include "trace/analysis/OpDiff.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/StepsFormat.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {

namespace {

struct CompareOptions {
  std::vector<std::string> args;
  bool json = false;
  bool ops = false;
};

// One side of the comparison: a file and, when given, the run in it (else its latest run).
struct RunRef {
  std::string file;
  std::optional<std::int64_t> run;
};

// A run id: digits only (no sign, no spaces), within int64.
std::optional<std::int64_t> parseRunId(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || text[0] == '-') return std::nullopt;
  return id;
}

bool isFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// FILE or FILE:RUN. The whole text is tried as a file first, so that a path holding ':' opens.
Result<RunRef> parseFileRun(const std::string& arg) {
  if (isFile(arg)) return RunRef{arg, std::nullopt};
  const auto colon = arg.rfind(':');
  if (colon == std::string::npos) return Error{arg + ": no such file"};
  const std::string file = arg.substr(0, colon);
  const std::string id = arg.substr(colon + 1);
  const auto run = parseRunId(id);
  if (!run)
    return Error{arg + ": no such file, and '" + id +
                 "' after the ':' is not a run id (a whole number)"};
  if (!isFile(file)) return Error{arg + ": no such file '" + file + "'"};
  return RunRef{file, run};
}

Result<RunRef> parseRunArg(const std::string& file, const std::string& id, const char* name) {
  const auto run = parseRunId(id);
  if (!run) return Error{std::string(name) + " '" + id + "' is not a run id (a whole number)"};
  return RunRef{file, run};
}

// The two runs named by the positional arguments (DESIGN §5).
Result<std::pair<RunRef, RunRef>> parseRefs(const std::vector<std::string>& args) {
  if (args.size() == 3) {
    auto a = parseRunArg(args[0], args[1], "RUN_A");
    if (!a) return std::move(a).takeError();
    auto b = parseRunArg(args[0], args[2], "RUN_B");
    if (!b) return std::move(b).takeError();
    return std::pair{*a, *b};
  }
  if (args.size() != 2)
    return Error{"compare takes FILE[:RUN] FILE[:RUN] or FILE RUN_A RUN_B, got " +
                 std::to_string(args.size()) + " argument" + (args.size() == 1 ? "" : "s")};
  // `compare FILE 3` is a likely slip for `compare FILE 3 5`: say so instead of "3: no such file".
  if (!isFile(args[1]) && parseRunId(args[1]) && isFile(args[0]))
    return Error{"RUN_B missing: '" + args[1] +
                 "' reads as a run id; compare FILE RUN_A RUN_B takes two"};
  auto a = parseFileRun(args[0]);
  if (!a) return std::move(a).takeError();
  auto b = parseFileRun(args[1]);
  if (!b) return std::move(b).takeError();
  return std::pair{*a, *b};
}

// The comparison with every text from the files (run names, sources, schedules, metric names,
// config values) and the paths made safe for a terminal: escaped and capped. The JSON form keeps
// them exact (its writer escapes control characters).
runtime::RunComparison forTerminal(runtime::RunComparison c) {
  for (trace::RunInfo* run : {&c.runA, &c.runB}) {
    run->name = trace::terminalSafe(run->name);
    run->source = trace::terminalSafe(run->source);
    if (run->schedule) *run->schedule = trace::terminalSafe(*run->schedule);
  }
  c.originA = trace::terminalSafe(c.originA);
  c.originB = trace::terminalSafe(c.originB);
  for (auto& row : c.rows)
    row.label = trace::terminalSafe(row.label);
  for (auto& d : c.differences) {
    d.label = trace::terminalSafe(d.label);
    if (d.a) *d.a = trace::terminalSafe(*d.a);
    if (d.b) *d.b = trace::terminalSafe(*d.b);
  }
  return c;
}

}  // namespace

Action addCompareCommand(CLI::App& app) {
  auto opt = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare two runs: step time, bubble, memory, links, metrics and what differs");
  cmd->add_option("RUNS", opt->args,
                  "FILE[:RUN] FILE[:RUN] (each file's latest run without :RUN), or "
                  "FILE RUN_A RUN_B (two runs of one file)")
      ->required();
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of a table");
  cmd->add_flag("--ops", opt->ops,
                "Also match the runs' ops by rank, stage, kind, micro-batch and step: the 20 "
                "largest moves of start and duration, the ops of one run only, and the bubble's "
                "change by idle cause");
  return [opt]() {
    auto refs = parseRefs(opt->args);
    if (!refs) return fail(refs.error());
    trace::LoadOptions load;  // read-only opens (TraceReader): the files are never written
    auto runA = trace::loadRunFromFile(refs->first.file, refs->first.run, load);
    if (!runA) return fail(runA.error());
    auto runB = trace::loadRunFromFile(refs->second.file, refs->second.run, load);
    if (!runB) return fail(runB.error());
    runtime::RunComparison c =
        runtime::compareRuns(trace::analyzeRun(*runA), trace::analyzeRun(*runB));
    c.originA = refs->first.file;
    c.originB = refs->second.file;
    std::string out =
        opt->json ? runtime::comparisonJson(c) : runtime::comparisonText(forTerminal(c));
    if (opt->ops) {
      const trace::RunExplanation whyA = trace::explainRun(*runA), whyB = trace::explainRun(*runB);
      const trace::OpDiff diff = trace::diffOps(*runA, &whyA, *runB, &whyB);
      out = opt->json ? trace::withJsonMember(out, "op_diff", trace::opDiffJson(diff))
                      : out + trace::opDiffText(diff);
    }
    std::cout << out;
    return kExitOk;
  };
}

}  // namespace ps::cli
