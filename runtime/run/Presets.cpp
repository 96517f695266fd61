#include "runtime/run/Presets.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <utility>

#include "runtime/cost/CostJson.h"
#include "runtime/cost/JsonFields.h"
#include "trace/FileText.h"

namespace ps::runtime {
namespace {

using json::Fields;

Status readPlan(const Fields& f, PlanSpec& spec) {
  PS_TRY(f.onlyKeys({"schedule",
                     "stages",
                     "microbatches",
                     "chunks",
                     "layers",
                     "boundaries",
                     "steps",
                     "optimizer_sync",
                     "recompute",
                     "fwd_us",
                     "bwd_us",
                     "wgrad_us",
                     "act_mb",
                     "param_mb",
                     "link_gbps",
                     "link_latency_us",
                     "split_backward",
                     "forward_only",
                     "costs",
                     "rank_speed",
                     "rank_memory_gb",
                     "dp",
                     "topology",
                     "inter_gbps",
                     "inter_latency_us",
                     "mapping",
                     "partition",
                     "time_slack",
                     "max_deferred_w",
                     "balance_activations",
                     "frozen_us",
                     "fill",
                     "token_slices",
                     "seq_tokens",
                     "attention_share",
                     "seq_lengths",
                     "microbatching",
                     "microbatch_tokens",
                     "microbatch_overhead",
                     "weight_versions",
                     "a2a_mb",
                     "a2a",
                     "fetch_mb",
                     "fetch",
                     "fetch_ahead",
                     "stage_graph",
                     "schedule_file"}));
  PS_ASSIGN(schedule, f.text("schedule"));
  // A fitted plan of an order no generator makes (pipescope-cli fit) names its torch CSV
  // instead, relative to the preset file (findPreset resolves it).
  PS_ASSIGN(scheduleFile, f.text("schedule_file"));
  if (scheduleFile) spec.scheduleFile = *scheduleFile;
  if (!schedule && !scheduleFile)
    return f.error("schedule", "missing (a generator name, see `schedules`, or a schedule_file)");
  if (schedule) spec.schedule = *schedule;
  auto intField = [&](std::string_view key, auto apply) -> Status {
    auto v = f.integer(key, 1);
    if (!v) return std::move(v).takeError();
    if (!*v) return {};
    if (**v > (1 << 20)) return f.error(key, "expected at most 1048576");
    apply(static_cast<int>(**v));
    return {};
  };
  PS_TRY(intField("stages", [&](int v) { spec.stages = v; }));
  PS_TRY(intField("microbatches", [&](int v) { spec.microbatches = v; }));
  PS_TRY(intField("chunks", [&](int v) { spec.chunks = v; }));
  PS_TRY(intField("layers", [&](int v) { spec.layers = v; }));
  PS_TRY(intField("steps", [&](int v) { spec.steps = v; }));
  PS_TRY(intField("dp", [&](int v) { spec.dataParallel = v; }));
  PS_TRY(intField("max_deferred_w", [&](int v) { spec.maxDeferredW = v; }));
  for (auto [key, into] :
       {std::pair{"topology", &spec.topology}, std::pair{"mapping", &spec.mapping},
        std::pair{"partition", &spec.partition}, std::pair{"fill", &spec.fill},
        std::pair{"token_slices", &spec.tokenSlices}, std::pair{"seq_lengths", &spec.seqLengths},
        std::pair{"microbatching", &spec.microbatching},
        std::pair{"weight_versions", &spec.weightVersions}, std::pair{"a2a", &spec.a2a},
        std::pair{"fetch", &spec.fetch}, std::pair{"stage_graph", &spec.stageGraph}}) {
    PS_ASSIGN(text, f.text(key));
    if (text) *into = *text;
  }
  PS_ASSIGN(boundaries, f.text("boundaries"));
  if (boundaries) spec.boundaries = *boundaries;
  PS_ASSIGN(sync, f.text("optimizer_sync"));
  if (sync) {
    const auto parsed = parseOptimizerSync(*sync);
    if (!parsed) return f.error("optimizer_sync", "expected \"barrier\" or \"none\"");
    spec.optimizerSync = *parsed;
  }
  PS_ASSIGN(recompute, f.boolean("recompute"));
  if (recompute) spec.recompute = *recompute;
  PS_ASSIGN(split, f.boolean("split_backward"));
  if (split) spec.splitBackward = *split;
  PS_ASSIGN(forward, f.boolean("forward_only"));
  if (forward) spec.forwardOnly = *forward;
  PS_ASSIGN(balance, f.boolean("balance_activations"));
  if (balance) spec.balanceActivations = *balance;
  PS_ASSIGN(frozen, f.number("frozen_us"));
  if (frozen) spec.frozenUs = *frozen;
  PS_TRY(intField("seq_tokens", [&](int v) { spec.seqTokens = v; }));
  PS_TRY(intField("microbatch_tokens", [&](int v) { spec.microbatchTokens = v; }));
  PS_TRY(intField("fetch_ahead", [&](int v) { spec.fetchAhead = v; }));
  PS_ASSIGN(a2aMb, f.number("a2a_mb"));
  if (a2aMb) spec.a2aMb = *a2aMb;
  PS_ASSIGN(fetchMb, f.number("fetch_mb"));
  if (fetchMb) spec.fetchMb = *fetchMb;
  PS_ASSIGN(overhead, f.number("microbatch_overhead"));
  if (overhead) spec.microbatchOverhead = *overhead;
  PS_ASSIGN(share, f.number("attention_share"));
  if (share) spec.attentionShare = *share;
  auto numbers = [&](std::string_view key, std::vector<double>& into) -> Status {
    PS_ASSIGN(list, f.list(key));
    if (!list) return {};
    into.clear();
    for (simdjson::dom::element item : *list) {
      double v = 0;
      if (item.get_double().get(v)) return f.error(key, "expected an array of numbers");
      into.push_back(v);
    }
    return {};
  };
  // A model of its own (a skewed layer-cost model), in the cost file's format.
  PS_ASSIGN(costs, f.objectText("costs"));
  if (costs) {
    auto model = parseCostJson(*costs, "plan.costs");
    if (!model) return f.error("costs", model.error());
    spec.costs = std::make_shared<const CostModel>(std::move(*model));
  }
  PS_TRY(numbers("rank_speed", spec.rankSpeed));
  PS_TRY(numbers("rank_memory_gb", spec.rankMemoryGb));
  auto number = [&](std::string_view key, double& into) -> Status {
    auto v = f.number(key);
    if (!v) return std::move(v).takeError();
    if (*v) into = **v;
    return {};
  };
  PS_TRY(number("fwd_us", spec.uniform.fwdUs));
  PS_TRY(number("bwd_us", spec.uniform.bwdUs));
  PS_TRY(number("wgrad_us", spec.uniform.wgradUs));
  PS_TRY(number("act_mb", spec.uniform.actMb));
  PS_TRY(number("param_mb", spec.uniform.paramMb));
  PS_TRY(number("link_latency_us", spec.uniform.linkLatencyUs));
  PS_TRY(number("inter_latency_us", spec.interLatencyUs));
  PS_TRY(number("time_slack", spec.timeSlack));
  PS_ASSIGN(inter, f.number("inter_gbps", true));
  if (inter) spec.interGbps = *inter;
  PS_ASSIGN(gbps, f.number("link_gbps", true));
  if (gbps) spec.uniform.linkGbps = *gbps;
  return {};
}

Status readHeadline(const Fields& f, Preset::Headline& h) {
  PS_TRY(f.onlyKeys({"metric", "value", "text"}));
  PS_ASSIGN(metric, f.text("metric"));
  PS_ASSIGN(value, f.number("value"));
  PS_ASSIGN(text, f.text("text"));
  if (!metric || !value || !text) return f.error("", "expected metric, value and text");
  if (*metric != "bubble_ratio" && *metric != "steady_bubble_ratio" && *metric != "step_time_ns" &&
      *metric != "peak_memory_bytes" && *metric != "peak_memory_spread_bytes" &&
      *metric != "link_bytes")
    return f.error("metric",
                   "expected bubble_ratio, steady_bubble_ratio, step_time_ns, peak_memory_bytes, "
                   "peak_memory_spread_bytes or link_bytes");
  h = {*metric, *value, *text};
  return {};
}

Result<std::string> required(const Fields& f, std::string_view key) {
  auto v = f.text(key);
  if (!v) return std::move(v).takeError();
  if (!*v || (*v)->empty()) return f.error(key, "missing (a non-empty string)");
  return **v;
}

}  // namespace

Result<Preset> parsePreset(std::string_view text, const std::string& source) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  PS_ASSIGN(top, json::parseTopObject(parser, padded, text, source));
  const Fields f(source, "", top);
  PS_TRY(f.onlyKeys({"name", "title", "reference", "teaching", "formula", "plan", "headline"}));
  Preset p;
  PS_ASSIGN(name, required(f, "name"));
  if (std::any_of(name.begin(), name.end(), [](char c) {
        return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
      }))
    return f.error("name", "expected lower-case letters, digits, '-' or '_'");
  p.name = name;
  PS_ASSIGN(title, required(f, "title"));
  PS_ASSIGN(reference, required(f, "reference"));
  PS_ASSIGN(teaching, required(f, "teaching"));
  p.title = title;
  p.reference = reference;
  p.teaching = teaching;
  PS_ASSIGN(formula, f.text("formula"));
  if (formula) p.formula = *formula;
  PS_ASSIGN(plan, f.child("plan"));
  if (!plan) return f.error("plan", "missing (the schedule, sizes and costs)");
  PS_TRY(readPlan(*plan, p.spec));
  PS_ASSIGN(headline, f.child("headline"));
  if (!headline) return f.error("headline", "missing (metric, value, text)");
  PS_TRY(readHeadline(*headline, p.headline));
  return p;
}

const PresetList& builtinPresets() {
  static const PresetList list = [] {
    PresetList l;
    for (const auto& file : embeddedPresetFiles()) {
      auto p = parsePreset(file.text, "resources/presets/" + file.fileName);
      if (p)
        l.presets.push_back(std::move(*p));
      else
        l.errors.push_back(p.error());
    }
    std::sort(l.presets.begin(), l.presets.end(),
              [](const Preset& a, const Preset& b) { return a.name < b.name; });
    return l;
  }();
  return list;
}

Result<Preset> findPreset(const std::string& nameOrPath) {
  if (nameOrPath.size() > 5 && nameOrPath.ends_with(".json")) {
    auto text = trace::readTextFile(nameOrPath, trace::kMaxFlagFileBytes, "preset file");
    if (!text) return std::move(text).takeError();
    auto preset = parsePreset(*text, nameOrPath);
    if (preset && !preset->spec.scheduleFile.empty() &&
        std::filesystem::path(preset->spec.scheduleFile).is_relative())
      preset->spec.scheduleFile =
          (std::filesystem::path(nameOrPath).parent_path() / preset->spec.scheduleFile).string();
    return preset;
  }
  std::string names;
  for (const Preset& p : builtinPresets().presets) {
    if (p.name == nameOrPath) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return Error{"--preset: unknown preset \"" + nameOrPath + "\" (there are: " + names +
               "; or give a preset .json file)"};
}

Result<RunPlanRequest> presetRequest(const std::string& nameOrPath) {
  auto preset = findPreset(nameOrPath);
  if (!preset) return std::move(preset).takeError();
  RunPlanRequest request;
  request.spec = preset->spec;
  request.backend = Backend::Sim;
  return request;
}

}  // namespace ps::runtime
