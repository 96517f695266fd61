// pipescope-cli explore: sweep schedule × micro-batches × chunks × partition (× replicas ×
// device mapping) over one model and cluster (BaPipe, DAPPLE's planner, Luo et al.), simulate each
// and print them ranked, best first; --json gives the array, --db writes the best one as a sim run.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <unistd.h>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "runtime/fit/PlanOfRun.h"
#include "runtime/run/Explore.h"
#include "runtime/run/RunPlan.h"
#include "trace/JsonWriter.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {
namespace {

struct ExploreOptions {
  PlanOptions plan;
  std::vector<std::string> schedules;
  std::vector<int> microbatches, chunks, dataParallel;
  std::vector<std::string> mappings;
  bool json = false;
  int top = 20;
  std::string db;
  std::string from;  // FILE or FILE:RUN: start from that run's plan (an import's fitted one)
};

// The base plan of --from FILE[:RUN]: the run's own plan, or the plan fitted to an import.
Result<runtime::PlanSpec> planFrom(const std::string& from, const std::atomic<bool>* cancel) {
  std::string file = from;
  std::optional<std::int64_t> id;
  const auto colon = from.rfind(':');
  if (colon != std::string::npos && colon + 1 < from.size() &&
      from.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    file = from.substr(0, colon);
    id = std::stoll(from.substr(colon + 1));
  }
  trace::LoadOptions load;
  load.cancel = cancel;
  auto run = trace::loadRunFromFile(file, id, load);
  if (!run) return Error{"--from: " + run.error()};
  auto plan = runtime::fit::planOfRun(*run, cancel);
  if (!plan) return Error{"--from: " + plan.error()};
  for (const auto& note : plan->notes)
    std::cerr << "pipescope-cli: note: " << trace::terminalSafe(note, kErrorLineCap) << '\n';
  return plan->spec;
}

std::string jsonOf(const runtime::ExploreResult& r) {
  trace::JsonWriter w;
  w.beginArray();
  for (const auto& c : r.ranked) {
    w.beginObject();
    w.key("schedule").value(c.schedule);
    w.key("microbatches").value(c.microbatches);
    w.key("chunks").value(c.chunks);
    w.key("dp").value(c.dataParallel);
    w.key("mapping").value(c.mapping.empty() ? std::string("rank") : c.mapping);
    w.key("partition").value(c.partition);
    w.key("boundaries").beginArray();
    for (int b : c.boundaries)
      w.value(b);
    w.endArray();
    w.key("step_time_ns").value(c.stepTimeNs);
    w.key("throughput_samples_per_s").value(c.throughputPerS);
    w.key("bubble_ratio").value(c.bubbleRatio);
    w.key("peak_memory_bytes").value(c.peakMemoryBytes);
    w.key("peak_memory_per_rank").beginArray();
    for (auto b : c.peakMemoryPerRank)
      w.value(b);
    w.endArray();
    w.endObject();
  }
  w.endArray();
  return w.str();
}

void printTable(const runtime::ExploreResult& r, int top) {
  std::printf("%zu candidates ranked by throughput (%zu refused), model of %d layers\n\n",
              r.ranked.size(), r.refused.size(), r.layers);
  std::printf("  #  %-17s %2s %4s %2s  %-8s  %-12s %12s %9s %10s  %-16s %s\n", "schedule", "dp",
              "m", "v", "cut", "step", "mb/s", "bubble", "peak", "boundaries", "devices");
  int i = 0;
  for (const auto& c : r.ranked) {
    if (++i > top) break;
    std::printf("%3d  %-17s %2d %4d %2d  %-8s  %-12s %12.1f %9s %10s  %-16s %s\n", i,
                c.schedule.c_str(), c.dataParallel, c.microbatches, c.chunks, c.partition.c_str(),
                trace::formatDuration(c.stepTimeNs).c_str(), c.throughputPerS,
                trace::formatPercent(c.bubbleRatio).c_str(),
                trace::formatBytes(c.peakMemoryBytes).c_str(),
                runtime::boundariesText(c.boundaries).c_str(),
                c.mapping.empty() ? "rank order" : c.mapping.c_str());
  }
  if (static_cast<int>(r.ranked.size()) > top)
    std::printf("  ... %zu more (--top N)\n", r.ranked.size() - static_cast<std::size_t>(top));
  if (!r.refused.empty()) {
    std::printf("\nrefused:\n");
    int shown = 0;
    for (const auto& f : r.refused) {
      if (++shown > 10) {
        std::printf("  ... %zu more\n", r.refused.size() - 10);
        break;
      }
      std::printf("  %s: %s\n", f.what.c_str(), f.why.c_str());
    }
  }
}

}  // namespace

Action addExploreCommand(CLI::App& app) {
  auto o = std::make_shared<ExploreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explore", "Sweep schedules, micro-batches, chunks and partitions; rank them by simulation");
  cmd->add_option("--stages", o->plan.spec.stages, "Pipeline ranks P")->check(CLI::Range(1, 512));
  cmd->add_option("--layers", o->plan.spec.layers, "Model layers (default: the costs', or P·V)")
      ->check(CLI::Range(1, runtime::kMaxLayers));
  addCostOptions(*cmd, o->plan);
  addTextListOption(*cmd, "--schedules", o->schedules,
                    "Schedules to try, e.g. gpipe,1f1b,zb-h1 (default: every synchronous one)");
  addIntListOption(*cmd, "--microbatches", o->microbatches,
                   "Micro-batch counts to try, e.g. 8,16,32 (default: 2P,4P)", 1, 4096);
  addIntListOption(*cmd, "--chunks", o->chunks,
                   "V to try for interleaved-1f1b and looped-bfs, e.g. 1,2,4 (default: 1,2)", 1,
                   64);
  addIntListOption(*cmd, "--dp", o->dataParallel,
                   "Data-parallel replicas D to try, e.g. 1,2 (each a pipeline of P/D ranks; "
                   "default 1)",
                   1, 64);
  addTextListOption(*cmd, "--mappings", o->mappings,
                    "Device mappings to try, e.g. rank,auto (default: --mapping's)");
  cmd->add_flag("--json", o->json, "Print the ranked candidates as a JSON array, best first");
  cmd->add_option("--top", o->top, "Rows of the table (default 20)")->check(CLI::Range(1, 100000));
  cmd->add_option("--db", o->db, "Also simulate the best candidate and append it to this file");
  cmd->add_option("--from", o->from,
                  "Start from a run's plan, FILE or FILE:RUN (an imported run's fitted plan: "
                  "its stages, costs and links; the cost flags are then ignored)")
      ->excludes("--stages")
      ->excludes("--layers");
  return [o]() {
    const InterruptScope interrupt;
    auto base = o->from.empty() ? planSpec(o->plan) : planFrom(o->from, interrupt.flag());
    if (!base) return fail(base.error());
    runtime::ExploreSpec spec;
    spec.base = std::move(*base);
    spec.schedules = o->schedules;
    spec.microbatches = o->microbatches;
    spec.chunks = o->chunks;
    spec.dataParallel = o->dataParallel;
    spec.mappings = o->mappings;
    // Progress on a terminal only (a pipe or a test reads stderr for errors): one line,
    // rewritten after each candidate, cleared at the end.
    runtime::ExploreProgress progress;
    if (isatty(STDERR_FILENO))
      progress = [](int done, int total) {
        if (done < total)
          std::fprintf(stderr, "\rexplore: %d/%d candidates", done, total);
        else
          std::fprintf(stderr, "\r%40s\r", "");
        std::fflush(stderr);
      };
    auto result = runtime::explorePlans(spec, interrupt.flag(), progress);
    if (!result) return fail(result.error());
    if (result->ranked.empty())
      return fail("explore: no candidate fits" +
                  (result->refused.empty() ? std::string()
                                           : " (first refusal: " + result->refused[0].what + ": " +
                                                 result->refused[0].why + ")"));
    if (o->json)
      std::cout << jsonOf(*result) << '\n';
    else
      printTable(*result, o->top);
    if (o->db.empty()) return kExitOk;
    runtime::RunPlanRequest request;
    request.spec = runtime::candidateSpec(spec, result->ranked[0], result->layers);
    request.backend = runtime::Backend::Sim;
    runtime::RunControl control;
    control.cancel = interrupt.flag();
    auto run = runtime::runPlan(request, {o->db}, control);
    if (!run) return fail(run.error());
    if (run->status != trace::RunStatus::Complete) return fail(run->message, kExitRunFailed);
    if (!o->json)
      std::cout << "\nrun " << *run->runId << ": " << run->name << " (the best candidate)\n";
    return kExitOk;
  };
}

}  // namespace ps::cli
