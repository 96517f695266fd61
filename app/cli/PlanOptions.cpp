#include "app/cli/PlanOptions.h"

#include <CLI/CLI.hpp>

#include "runtime/cost/CostModel.h"

namespace ps::cli {

// Each flag's own range; their product is bounded by buildPlan's size check (a plan past
// runtime::kMaxPlanActions actions is refused with the product named, runtime/run/PlanSize.h), and
// the cost flags' values by uniformCostModel (finite, and no op or transfer past kMaxOpNs).
void addPlanOptions(CLI::App& cmd, PlanOptions& o) {
  auto& s = o.spec;
  auto* schedule = cmd.add_option("--schedule", s.schedule,
                                  "Schedule generator (see `pipescope-cli schedules`)");
  auto* file = cmd.add_option("--schedule-file", s.scheduleFile,
                              "torch pipelining CSV schedule (compute-only or with comms)")
                   ->check(CLI::ExistingFile);
  schedule->excludes(file);
  file->excludes(schedule);
  cmd.add_option("--stages", s.stages, "Pipeline ranks P")->check(CLI::Range(1, 4096));
  cmd.add_option("--microbatches", s.microbatches, "Micro-batches M per step")
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--chunks", s.chunks, "Virtual stages per rank V")->check(CLI::Range(1, 64));
  cmd.add_option("--layers", s.layers, "Model layers (default P·V)")
      ->check(CLI::Range(1, runtime::kMaxLayers));
  cmd.add_option("--boundaries", s.boundaries,
                 "First layer of stages 1..S-1, e.g. 3,6,9 (default: balanced by the partitioner)");
  cmd.add_option("--costs", s.costsFile, "Per-layer cost JSON")->check(CLI::ExistingFile);
  cmd.add_option("--fwd-us", s.uniform.fwdUs, "One layer's forward time (µs)");
  cmd.add_option("--bwd-us", s.uniform.bwdUs, "One layer's whole backward I+W (µs)");
  cmd.add_option("--wgrad-us", s.uniform.wgradUs, "The weight-gradient part W of --bwd-us (µs)");
  cmd.add_option("--act-mb", s.uniform.actMb, "One micro-batch's activations per layer (MiB)");
  cmd.add_option("--param-mb", s.uniform.paramMb, "Parameters per layer (MiB)");
  cmd.add_option("--link-gbps", s.uniform.linkGbps, "Link bandwidth (Gb/s); default: free links");
  cmd.add_option("--link-latency-us", s.uniform.linkLatencyUs, "Link latency (µs)");
  cmd.add_option("--steps", s.steps, "Training steps")->check(CLI::Range(1, 100000));
  cmd.add_option("--optimizer-sync", o.optimizerSync,
                 "barrier: the optimizer step waits for every rank; none: only for its own")
      ->check(CLI::IsMember({"barrier", "none"}));
  cmd.add_flag(
      "--recompute", s.recompute,
      "Activation recomputation: keep only stage inputs after F, recompute before backward");
  cmd.add_option("--db", o.db, "Trace file to append the run to")->required();
  cmd.add_option("--name", o.name, "Run name (default: schedule and sizes)");
}

runtime::PlanSpec planSpec(PlanOptions& o) {
  o.spec.optimizerSync =
      runtime::parseOptimizerSync(o.optimizerSync).value_or(runtime::OptimizerSync::Barrier);
  return o.spec;
}

Result<runtime::BuiltPlan> buildPlanFromOptions(PlanOptions& o) {
  return runtime::buildPlan(planSpec(o));
}

}  // namespace ps::cli
