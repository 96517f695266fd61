#include "app/cli/PlanOptions.h"

#include <CLI/CLI.hpp>

#include "runtime/cost/CostJson.h"
#include "runtime/cost/CostModel.h"
#include "runtime/run/CostOverrides.h"
#include "runtime/run/Presets.h"
#include "runtime/schedules/CommaList.h"

namespace ps::cli {

namespace {

using Copy = std::function<void(runtime::PlanSpec&, const PlanOptions&)>;

// Copies one field of the parsed flags' spec into a preset's spec.
template <class T>
Copy field(T runtime::PlanSpec::*member) {
  return [member](runtime::PlanSpec& d, const PlanOptions& f) { d.*member = f.spec.*member; };
}
template <class T>
Copy uniformField(T runtime::UniformCostFlags::*member) {
  return [member](runtime::PlanSpec& d, const PlanOptions& f) {
    d.uniform.*member = f.spec.uniform.*member;
  };
}

// A list option: every value given, split and converted by `parse` (which throws CLI11's
// ValidationError, so the message comes out as any other usage error).
template <class T, class Parse>
CLI::Option* listOption(CLI::App& cmd, const std::string& name, std::vector<T>& into,
                        const std::string& help, Parse parse) {
  auto* option = cmd.add_option(
      name,
      [&into, name, parse](const CLI::results_t& values) {
        into.clear();
        for (const std::string& value : values) {
          auto items = parse(value, name);
          if (!items) throw CLI::ValidationError(items.error(), CLI::ExitCodes::ValidationError);
          into.insert(into.end(), items->begin(), items->end());
        }
        return true;
      },
      help);
  option->type_name("LIST")->expected(1, CLI::detail::expected_max_vector_size);
  return option;
}

// Records how the flag copies its value over a preset's spec (planSpec), and returns it.
CLI::Option* kept(PlanOptions& o, CLI::Option* option, Copy copy) {
  o.plans.emplace_back(option, std::move(copy));
  return option;
}

}  // namespace

CLI::Option* addNumberListOption(CLI::App& cmd, const std::string& name, std::vector<double>& into,
                                 const std::string& help) {
  return listOption(cmd, name, into, help, runtime::parseNumberList);
}

CLI::Option* addIntListOption(CLI::App& cmd, const std::string& name, std::vector<int>& into,
                              const std::string& help, int lo, int hi) {
  return listOption(
      cmd, name, into, help,
      [lo, hi](const std::string& text, const std::string& flag) -> Result<std::vector<int>> {
        auto items = runtime::parseIntList(text, flag);
        if (!items) return items;
        for (int v : *items)
          if (v < lo || v > hi)
            return Error{flag + " " + text + ": " + std::to_string(v) + " is outside " +
                         std::to_string(lo) + ".." + std::to_string(hi)};
        return items;
      });
}

CLI::Option* addTextListOption(CLI::App& cmd, const std::string& name,
                               std::vector<std::string>& into, const std::string& help) {
  return listOption(cmd, name, into, help, runtime::splitCommaList);
}

// The cost, link and device flags (shared with `explore`).
void addCostOptions(CLI::App& cmd, PlanOptions& o) {
  auto& s = o.spec;
  using Spec = runtime::PlanSpec;
  auto keep = [&o](CLI::Option* option, Copy copy) { return kept(o, option, std::move(copy)); };
  keep(cmd.add_option("--costs", s.costsFile, "Per-layer cost JSON")->check(CLI::ExistingFile),
       field(&Spec::costsFile));
  keep(cmd.add_option("--fwd-us", s.uniform.fwdUs, "One layer's forward time (µs)"),
       uniformField(&runtime::UniformCostFlags::fwdUs));
  keep(cmd.add_option("--bwd-us", s.uniform.bwdUs, "One layer's whole backward I+W (µs)"),
       uniformField(&runtime::UniformCostFlags::bwdUs));
  keep(cmd.add_option("--wgrad-us", s.uniform.wgradUs,
                      "The weight-gradient part W of --bwd-us (µs)"),
       uniformField(&runtime::UniformCostFlags::wgradUs));
  keep(cmd.add_option("--act-mb", s.uniform.actMb, "One micro-batch's activations per layer (MiB)"),
       uniformField(&runtime::UniformCostFlags::actMb));
  keep(cmd.add_option("--param-mb", s.uniform.paramMb, "Parameters per layer (MiB)"),
       uniformField(&runtime::UniformCostFlags::paramMb));
  keep(cmd.add_option("--link-gbps", s.uniform.linkGbps,
                      "Link bandwidth (Gb/s); default: free links"),
       uniformField(&runtime::UniformCostFlags::linkGbps));
  keep(cmd.add_option("--link-latency-us", s.uniform.linkLatencyUs, "Link latency (µs)"),
       [](Spec& d, const PlanOptions& f) {
         d.uniform.linkLatencyUs = f.spec.uniform.linkLatencyUs;
       });
  keep(addNumberListOption(cmd, "--rank-speed", s.rankSpeed,
                           "Per-rank speed factors, e.g. 1,1,2,1 (2 = twice as fast); the "
                           "partitioner balances by them"),
       field(&Spec::rankSpeed));
  keep(addNumberListOption(cmd, "--rank-memory-gb", s.rankMemoryGb,
                           "Per-rank memory capacity in GiB, e.g. 80,80,40,40; the partitioner "
                           "fits each stage's peak in it"),
       field(&Spec::rankMemoryGb));
  keep(cmd.add_option("--topology", s.topology,
                      "Nodes x devices, e.g. 2x4: within a node the --link flags, between nodes "
                      "--inter-gbps over one link each pair of nodes shares"),
       field(&Spec::topology));
  keep(cmd.add_option("--inter-gbps", s.interGbps,
                      "Inter-node link bandwidth (Gb/s) under --topology; default: the --link one"),
       field(&Spec::interGbps));
  keep(cmd.add_option("--inter-latency-us", s.interLatencyUs,
                      "Inter-node link latency (µs) under --topology"),
       field(&Spec::interLatencyUs));
  keep(cmd.add_option("--mapping", s.mapping,
                      "Which device runs each rank: rank (default), auto (searched by simulated "
                      "step time) or a device list, e.g. 0,4,1,5,2,6,3,7"),
       field(&Spec::mapping));
}

// Each flag's own range; their product is bounded by buildPlan's size check (a plan past
// runtime::kMaxPlanActions actions is refused with the product named, runtime/run/PlanSize.h), and
// the cost flags' values by uniformCostModel (finite, and no op or transfer past kMaxOpNs).
void addPlanOptions(CLI::App& cmd, PlanOptions& o) {
  auto& s = o.spec;
  using Spec = runtime::PlanSpec;
  auto keep = [&o](CLI::Option* option, Copy copy) { return kept(o, option, std::move(copy)); };
  cmd.add_option("--preset", o.preset,
                 "A preset's plan (see `pipescope-cli presets`) or a preset .json file; flags "
                 "given with it override its values");
  auto* schedule = keep(cmd.add_option("--schedule", s.schedule,
                                       "Schedule generator (see `pipescope-cli schedules`)"),
                        [](Spec& d, const PlanOptions& f) {
                          d.schedule = f.spec.schedule;
                          d.scheduleFile.clear();
                        });
  auto* file = keep(cmd.add_option("--schedule-file", s.scheduleFile,
                                   "torch pipelining CSV schedule (compute-only or with comms)")
                        ->check(CLI::ExistingFile),
                    field(&Spec::scheduleFile));
  schedule->excludes(file);
  file->excludes(schedule);
  keep(cmd.add_option("--stages", s.stages, "Pipeline ranks P")->check(CLI::Range(1, 4096)),
       field(&Spec::stages));
  keep(cmd.add_option("--microbatches", s.microbatches, "Micro-batches M per step")
           ->check(CLI::Range(1, 1 << 20)),
       field(&Spec::microbatches));
  keep(cmd.add_option("--chunks", s.chunks, "Virtual stages per rank V")->check(CLI::Range(1, 64)),
       field(&Spec::chunks));
  keep(cmd.add_option("--dp", s.dataParallel,
                      "DAPPLE: D data-parallel replicas of the pipeline (D x --stages ranks), "
                      "M/D micro-batches each, gradients all-reduced before the optimizer step")
           ->check(CLI::Range(1, 64)),
       field(&Spec::dataParallel));
  keep(cmd.add_option("--layers", s.layers, "Model layers (default P·V)")
           ->check(CLI::Range(1, runtime::kMaxLayers)),
       field(&Spec::layers));
  keep(cmd.add_option(
           "--boundaries", s.boundaries,
           "First layer of stages 1..S-1, e.g. 3,6,9 (default: balanced by the partitioner)"),
       field(&Spec::boundaries));
  keep(cmd.add_option("--partition", s.partition,
                      "What the partitioner balances without --boundaries: time (default) or "
                      "memory (DawnPiper: the largest stage's memory, within --time-slack)")
           ->check(CLI::IsMember({"time", "memory"})),
       field(&Spec::partition));
  keep(cmd.add_option("--time-slack", s.timeSlack,
                      "--partition memory: how much slower than the time-balanced cut the "
                      "slowest stage may be (0.1 = 10 %; default 0)")
           ->check(CLI::Range(0.0, 10.0)),
       field(&Spec::timeSlack));
  addCostOptions(cmd, o);
  keep(cmd.add_option("--steps", s.steps, "Training steps")->check(CLI::Range(1, 100000)),
       field(&Spec::steps));
  keep(cmd.add_option("--optimizer-sync", o.optimizerSync,
                      "barrier: the optimizer step waits for every rank; none: only for its own")
           ->check(CLI::IsMember({"barrier", "none"})),
       [](Spec& d, const PlanOptions& f) {
         d.optimizerSync =
             runtime::parseOptimizerSync(f.optimizerSync).value_or(runtime::OptimizerSync::Barrier);
       });
  keep(cmd.add_flag(
           "--recompute", s.recompute,
           "Activation recomputation: keep only stage inputs after F, recompute before backward"),
       field(&Spec::recompute));
  keep(cmd.add_flag("--forward-only", s.forwardOnly,
                    "Inference (PipeEdge): forwards only, no backward or optimizer step; report "
                    "gives throughput in micro-batches/s (sim backend)"),
       field(&Spec::forwardOnly));
  keep(cmd.add_flag("--split-backward", s.splitBackward,
                    "LayerPipe/2BP: split each B into I (now) and W (deferred into bubbles); for "
                    "schedules with whole backwards (gpipe, 1f1b, ...)"),
       field(&Spec::splitBackward));
  keep(cmd.add_option("--max-deferred-w", s.maxDeferredW,
                      "--split-backward: at most K weight gradients W pending per rank (each "
                      "keeps its activations); 0 = no bound")
           ->check(CLI::Range(0, 1 << 20)),
       field(&Spec::maxDeferredW));
  keep(cmd.add_flag("--balance-activations", s.balanceActivations,
                    "BPipe: the heavier rank of each pair (r, P-1-r) offloads activations to the "
                    "lighter after F and reloads them before the backward"),
       field(&Spec::balanceActivations));
  keep(cmd.add_option("--frozen-us", s.frozenUs,
                      "DiffusionPipe: the frozen (non-trainable) part's forward per micro-batch, "
                      "in µs on a speed-1 device; each is a FILL op feeding stage 0"),
       field(&Spec::frozenUs));
  keep(cmd.add_option("--fill", s.fill,
                      "With --frozen-us: bubbles (the next step's frozen work in this step's idle "
                      "gaps, the default) or before (each step's first, round-robin over ranks)")
           ->check(CLI::IsMember({"before", "bubbles"})),
       field(&Spec::fill));
  keep(cmd.add_option("--token-slices", s.tokenSlices,
                      "TeraPipe (gpipe): cut each micro-batch, one sequence, into token slices: K "
                      "equal ones, auto (the DP's lengths) or token counts like 1024,640,384"),
       field(&Spec::tokenSlices));
  keep(cmd.add_option("--seq-tokens", s.seqTokens,
                      "--token-slices: the sequence's length in tokens; --seq-lengths: the "
                      "reference sequence the cost flags time, and a packed row (default 2048)")
           ->check(CLI::Range(1, 1 << 24)),
       field(&Spec::seqTokens));
  keep(cmd.add_option("--attention-share", s.attentionShare,
                      "--token-slices: causal attention's share of a layer's time over the whole "
                      "sequence (default 0.5); a slice's attention grows with its prefix")
           ->check(CLI::Range(0.0, 1.0)),
       field(&Spec::attentionShare));
  keep(cmd.add_option("--weight-versions", s.weightVersions,
                      "pipedream: stash (each in-flight micro-batch keeps its forward's weights, "
                      "the default), latest (TiMePReSt, pipelined backprop: no stash) or predict "
                      "(XPipe: F on weights predicted from the optimizer's moments)")
           ->check(CLI::IsMember({"stash", "latest", "predict"})),
       field(&Spec::weightVersions));
  keep(cmd.add_option("--stage-graph", s.stageGraph,
                      "GraphPipe: the stages as a DAG, edges like 0>1,1>4,2>3,3>4 (two towers "
                      "joined at the last stage); gpipe or 1f1b, one stage per rank"),
       field(&Spec::stageGraph));
  keep(cmd.add_option(
              "--a2a-mb", s.a2aMb,
              "Piper (MoE tokens), GNN halos: every F and B ends in an all-to-all among the "
              "stage's replicas (--dp >= 2), this many MiB per rank and micro-batch, a share kept")
           ->check(CLI::Range(0.0, 1e6)),
       field(&Spec::a2aMb));
  keep(cmd.add_option("--a2a", s.a2a,
                      "--a2a-mb: overlap (on the communication lane beside compute, the "
                      "default) or serial (the compute stream waits)")
           ->check(CLI::IsMember({"overlap", "serial"})),
       field(&Spec::a2a));
  keep(cmd.add_option("--fetch-mb", s.fetchMb,
                      "NestPipe: every F of stage 0 first gathers this many MiB of embeddings "
                      "from the pipeline's other ranks")
           ->check(CLI::Range(0.0, 1e6)),
       field(&Spec::fetchMb));
  keep(cmd.add_option("--fetch", s.fetch,
                      "--fetch-mb: overlap (an inner pipeline on the communication lane, the "
                      "default) or serial (each fetch on the stream before its F)")
           ->check(CLI::IsMember({"overlap", "serial"})),
       field(&Spec::fetch));
  keep(cmd.add_option("--fetch-ahead", s.fetchAhead,
                      "--fetch overlap: how many micro-batches the inner pipeline fetches ahead "
                      "(default 2)")
           ->check(CLI::Range(1, 1024)),
       field(&Spec::fetchAhead));
  keep(cmd.add_option("--seq-lengths", s.seqLengths,
                      "DynaPipe: the global batch's sequence lengths in tokens, l1,l2,... or "
                      "@FILE; grouped into micro-batches of different sizes (see --microbatching)"),
       field(&Spec::seqLengths));
  keep(cmd.add_option("--microbatching", s.microbatching,
                      "--seq-lengths: dp (sorted, padded groups cut by DynaPipe's DP, the "
                      "default) or packed (rows of --seq-tokens tokens, first fit in order)")
           ->check(CLI::IsMember({"dp", "packed"})),
       field(&Spec::microbatching));
  keep(cmd.add_option("--microbatch-tokens", s.microbatchTokens,
                      "--seq-lengths: a micro-batch's padded tokens, at most (default 8192)")
           ->check(CLI::Range(1, 1 << 30)),
       field(&Spec::microbatchTokens));
  keep(cmd.add_option("--microbatch-overhead", s.microbatchOverhead,
                      "--seq-lengths, --token-slices: a micro-batch's fixed cost as a fraction "
                      "of one --seq-tokens sequence's (default 0)")
           ->check(CLI::Range(0.0, 100.0)),
       field(&Spec::microbatchOverhead));
  cmd.add_option("--db", o.db, "Trace file to append the run to")->required();
  cmd.add_option("--name", o.name, "Run name (default: schedule and sizes)");
}

namespace {

bool given(const PlanOptions& o, const std::string& longName) {
  for (const auto& [option, copy] : o.plans)
    if (option->count() > 0 && option->check_lname(longName)) return true;
  return false;
}

// The uniform cost flags given on the command line, over a per-layer model (a preset's "costs"
// or a --costs file): each overrides its field of every layer (runtime/run/CostOverrides.h). A
// --costs file given with a preset replaces the preset's model. Without such a model the flags
// are the uniform model's already.
Result<runtime::PlanSpec> withCostFlags(runtime::PlanSpec spec, const PlanOptions& o) {
  if (!o.preset.empty() && given(o, "costs")) spec.costs.reset();
  const runtime::UniformCostFlags& u = o.spec.uniform;
  runtime::CostOverrides over;
  const auto take = [&](const char* name, double value, std::optional<double>& into) {
    if (given(o, name)) into = value;
  };
  take("fwd-us", u.fwdUs, over.fwdUs);
  take("bwd-us", u.bwdUs, over.bwdUs);
  take("wgrad-us", u.wgradUs, over.wgradUs);
  take("act-mb", u.actMb, over.actMb);
  take("param-mb", u.paramMb, over.paramMb);
  if (given(o, "link-gbps")) over.linkGbps = u.linkGbps;
  take("link-latency-us", u.linkLatencyUs, over.linkLatencyUs);
  if (!over.any() || (!spec.costs && spec.costsFile.empty())) return spec;
  runtime::CostModel model;
  if (spec.costs) {
    model = *spec.costs;
  } else {
    auto file = runtime::loadCostJson(spec.costsFile);
    if (!file) return std::move(file).takeError();
    model = std::move(*file);
  }
  auto overridden = runtime::overrideCosts(std::move(model), over);
  if (!overridden) return std::move(overridden).takeError();
  // The costs used, embedded in config_json; costs_file (when given) still names their source.
  spec.costs = std::make_shared<const runtime::CostModel>(std::move(*overridden));
  spec.uniform = runtime::UniformCostFlags{};
  return spec;
}

}  // namespace

Result<runtime::PlanSpec> planSpec(PlanOptions& o) {
  o.spec.optimizerSync =
      runtime::parseOptimizerSync(o.optimizerSync).value_or(runtime::OptimizerSync::Barrier);
  if (o.preset.empty()) return withCostFlags(o.spec, o);
  auto preset = runtime::findPreset(o.preset);
  if (!preset) return std::move(preset).takeError();
  runtime::PlanSpec spec = preset->spec;
  for (const auto& [option, copy] : o.plans)
    if (option->count() > 0) copy(spec, o);
  return withCostFlags(std::move(spec), o);
}

Result<runtime::BuiltPlan> buildPlanFromOptions(PlanOptions& o) {
  auto spec = planSpec(o);
  if (!spec) return std::move(spec).takeError();
  return runtime::buildPlan(*spec);
}

}  // namespace ps::cli
