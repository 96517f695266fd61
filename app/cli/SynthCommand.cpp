// pipescope-cli synth PLAN [--rank-memory-gb ... | --cap-of SCHEDULE] [--time-limit S] [--seed N]
//   [--out X.csv [--with-comms]] [--db FILE]: search each rank's order of F / I / W under the
// memory caps (runtime/synth/Synthesise.h), print it against the generators under the same caps,
// write it as a torch pipelining CSV and, with --db, as a sim run read back from that CSV.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/run/RunPlan.h"
#include "runtime/synth/SynthOutput.h"
#include "runtime/synth/Synthesise.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"

namespace ps::cli {
namespace {

struct SynthFlags {
  PlanOptions plan;
  std::string capOf;  // a generator whose largest peak caps every rank
  double timeLimitS = 10;
  int passes = runtime::synth::SynthOptions{}.maxPasses;
  std::uint64_t seed = 1;
  std::string out;
  bool withComms = false;
  bool noSplit = false;
  std::string placement;
};

std::string peakText(const std::vector<std::int64_t>& peaks) {
  return peaks.empty() ? "-" : trace::formatBytes(*std::max_element(peaks.begin(), peaks.end()));
}

void printTable(const runtime::synth::SynthResult& r) {
  std::printf("  %-18s %12s %12s  %s\n", "schedule", "step", "peak", "");
  std::printf("  %-18s %12s %12s  searched %d passes in %.2f s%s, from %s\n", "synth",
              trace::formatDuration(r.stepNs).c_str(), peakText(r.peakPerRank).c_str(), r.passes,
              r.seconds, r.stoppedByClock ? " (stopped by --time-limit)" : "",
              r.startedFrom.c_str());
  for (const auto& b : r.baselines) {
    if (b.stepNs)
      std::printf("  %-18s %12s %12s\n", b.schedule.c_str(),
                  trace::formatDuration(*b.stepNs).c_str(), peakText(b.peakPerRank).c_str());
    else
      std::printf("  %-18s %12s %12s  refused: %s\n", b.schedule.c_str(), "-", "-",
                  trace::terminalSafe(b.refused, 300).c_str());
  }
  std::printf("\nsynth: %s\n", runtime::synth::gainSummary(r).c_str());
}

std::string capsText(const std::vector<std::int64_t>& caps) {
  if (std::all_of(caps.begin(), caps.end(),
                  [](std::int64_t c) { return c == std::numeric_limits<std::int64_t>::max(); }))
    return "no memory caps";
  std::string text = "caps";
  for (std::size_t r = 0; r < caps.size(); ++r)
    text += (r ? ", " : " ") + (caps[r] == std::numeric_limits<std::int64_t>::max()
                                    ? std::string("-")
                                    : trace::formatBytes(caps[r]));
  return text;
}

int run(SynthFlags& f, const std::atomic<bool>* cancel) {
  auto spec = planSpec(f.plan);
  if (!spec) return fail(spec.error());
  runtime::synth::SynthRequest request{std::move(*spec), !f.noSplit, f.placement};
  if (!f.capOf.empty()) {
    auto caps = runtime::synth::capsOfSchedule(request, f.capOf);
    if (!caps) return fail(caps.error());
    request.spec.rankMemoryGb = *caps;
  }
  if (!f.plan.db.empty() && f.out.empty())
    return fail("synth: --db: give --out X.csv too (the run is read back from the CSV)");
  runtime::synth::SynthOptions options;
  options.timeLimitS = f.timeLimitS;
  options.seed = f.seed;
  options.maxPasses = f.passes;
  options.patience = std::max(options.patience, f.passes / 4);
  auto result = runtime::synth::synthesise(request, options, cancel);
  if (!result)
    return fail(result.error(), cancel && cancel->load() ? kExitRunFailed : kExitBadInput);
  const auto& plan = result->built->plan;
  std::printf("synth p=%d m=%d v=%d%s (%s), %s\n\n", plan.numRanks, plan.numMicrobatches(),
              plan.chunks,
              plan.chunks == 1                              ? ""
              : runtime::synth::placementOf(request) == "v" ? " V-shaped"
                                                            : " looped",
              plan.splitBackward ? "F / I / W" : "F / B", capsText(result->capPerRank).c_str());
  printTable(*result);
  if (f.out.empty()) return kExitOk;
  const std::string text = runtime::synth::synthCsvText(*result->built, f.withComms);
  if (auto written = runtime::writeTorchCsvFile(f.out, text); !written)
    return fail(written.error());
  const runtime::PlanSpec replay = runtime::synth::replaySpec(request, *result, f.out);
  std::printf(
      "\nwrote %s (%s); read it back with: pipescope-cli sim --schedule-file %s "
      "--boundaries %s and this command's cost, link and memory flags\n",
      f.out.c_str(), f.withComms ? "compute_comms" : "compute_only", f.out.c_str(),
      replay.boundaries.c_str());
  if (f.plan.db.empty()) return kExitOk;
  runtime::RunPlanRequest run;
  run.spec = replay;
  run.name = f.plan.name.empty() ? "synth " + planRunName(plan).substr(plan.schedule.size() + 1)
                                 : f.plan.name;
  runtime::RunControl control;
  control.cancel = cancel;
  auto written = runtime::runPlan(run, {f.plan.db}, control);
  if (!written) return fail(written.error());
  if (written->status != trace::RunStatus::Complete) return fail(written->message, kExitRunFailed);
  const std::int64_t replayed = written->sim ? written->sim->makespan : -1;
  std::printf("run %lld: %s read back from %s: step %s\n",
              static_cast<long long>(written->runId.value_or(-1)), written->name.c_str(),
              f.out.c_str(), trace::formatDuration(replayed).c_str());
  if (replayed != result->stepNs)
    return fail("synth: the CSV read back simulates to " + trace::formatDuration(replayed) +
                    ", not the " + trace::formatDuration(result->stepNs) + " found",
                kExitRunFailed);
  return kExitOk;
}

}  // namespace

Action addSynthCommand(CLI::App& app) {
  auto f = std::make_shared<SynthFlags>();
  CLI::App* cmd = app.add_subcommand(
      "synth", "Synthesise a schedule under the memory caps; write it as a torch pipelining CSV");
  addPlanOptions(*cmd, f->plan);
  cmd->get_option("--db")->required(false)->description(
      "Also simulate the written CSV and append it as a run (needs --out)");
  cmd->add_option("--cap-of", f->capOf,
                  "Cap every rank at the largest peak this generator reaches (e.g. zb-h1)");
  cmd->add_option("--time-limit", f->timeLimitS, "Search for at most this many seconds")
      ->check(CLI::Range(0.01, 3600.0));
  cmd->add_option("--passes", f->passes, "Schedules the search tries at most")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--seed", f->seed, "Seed of the local search (same seed, same schedule)");
  cmd->add_option("--out", f->out, "Write the schedule as a torch pipelining CSV");
  cmd->add_flag("--with-comms", f->withComms, "--out: the compute_comms form (SEND/RECV too)");
  cmd->add_option("--placement", f->placement,
                  "Chunks per rank: looped (stage s on rank s mod P) or v (ZB-V's V-shape; the "
                  "default at --chunks 2)");
  cmd->add_flag("--no-split", f->noSplit, "Keep each backward whole (F / B, no W to place)");
  return [f, cmd]() {
    const InterruptScope interrupt;
    if (cmd->get_option("--schedule")->count() > 0)
      return fail("synth: --schedule: synth writes the schedule (give the plan's shape)");
    return run(*f, interrupt.flag());
  };
}

}  // namespace ps::cli
