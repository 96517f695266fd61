#include "runtime/run/ConfigKnobs.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <set>
#include <span>

#include "runtime/run/PlanKnobs.h"
#include "trace/Units.h"

namespace ps::runtime {
namespace {

using trace::formatDuration;
using trace::pathBaseName;

using Element = simdjson::dom::element;
using Fields = std::map<std::string, Element, std::less<>>;

using Format = KnobFormat;

struct KnobSpec {
  std::string_view key;
  std::string_view label;
  Format format;
};

// The plan knobs in the order people read a plan: what ran, its shape, its mechanisms, then
// placement (the table's own order is config_json's). Labels and formats are the rows'; a row
// not named here reads after these, in the table's order.
constexpr std::string_view kReadingOrder[] = {"schedule",
                                              "schedule_file",
                                              "stages",
                                              "microbatches",
                                              "chunks",
                                              "layers",
                                              "boundaries",
                                              "steps",
                                              "optimizer_sync",
                                              "recompute",
                                              "split_backward",
                                              "max_deferred_w",
                                              "forward_only",
                                              "balance_activations",
                                              "weight_versions",
                                              "stage_graph",
                                              "a2a_mb",
                                              "a2a",
                                              "fetch_mb",
                                              "fetch",
                                              "fetch_ahead",
                                              "frozen_us",
                                              "fill",
                                              "token_slices",
                                              "seq_tokens",
                                              "attention_share",
                                              "seq_lengths",
                                              "microbatching",
                                              "microbatch_tokens",
                                              "microbatch_overhead",
                                              "partition",
                                              "time_slack",
                                              "dp",
                                              "topology",
                                              "inter_gbps",
                                              "inter_latency_us",
                                              "mapping",
                                              "rank_speed",
                                              "rank_memory_gb"};

// The uniform cost rows: meaningless where a cost file or calibrated costs replace them. The
// cost file itself reads as a summary (addCosts).
constexpr std::string_view kUniformKeys[] = {"fwd_us",   "bwd_us",    "wgrad_us",       "act_mb",
                                             "param_mb", "link_gbps", "link_latency_us"};
constexpr std::string_view kCostsFileKey = "costs_file";

template <std::size_t N>
bool listed(const std::string_view (&keys)[N], std::string_view key) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

KnobSpec specOf(const PlanKnob& row) {
  return {row.key, row.label, row.format};
}

// The backend, then the plan rows in reading order.
const std::vector<KnobSpec>& planSpecs() {
  static const std::vector<KnobSpec> specs = [] {
    std::vector<KnobSpec> out{{"backend", "backend", Format::Text}};
    for (std::string_view key : kReadingOrder)
      if (const PlanKnob* row = findPlanKnob(key)) out.push_back(specOf(*row));
    for (const PlanKnob& row : planKnobs())
      if (!listed(kReadingOrder, row.key) && !listed(kUniformKeys, row.key) &&
          row.key != kCostsFileKey)
        out.push_back(specOf(row));
    return out;
  }();
  return specs;
}

const std::vector<KnobSpec>& uniformSpecs() {
  static const std::vector<KnobSpec> specs = [] {
    std::vector<KnobSpec> out;
    for (std::string_view key : kUniformKeys)
      if (const PlanKnob* row = findPlanKnob(key)) out.push_back(specOf(*row));
    return out;
  }();
  return specs;
}

constexpr KnobSpec kModelKnobs[] = {
    {"model", "model", Format::Text},
    {"hidden", "hidden", Format::Number},
    {"seq", "seq", Format::Number},
    {"mb_size", "mb size", Format::Number},
    {"heads", "heads", Format::Number},
    {"ffn_multiplier", "ffn ×", Format::Number},
    {"seed", "seed", Format::Number},
    {"optimizer", "optimizer", Format::Text},
    {"lr", "lr", Format::Number},
    {"momentum", "momentum", Format::Number},
    {"beta1", "beta1", Format::Number},
    {"beta2", "beta2", Format::Number},
    {"eps", "eps", Format::Number},
    {"dtype", "dtype", Format::Text},
    {"sm_split", "SM split", Format::Flag},
    {"emulated_link_gbps", "emulated link", Format::Gbps},
    {"emulated_link_latency_us", "emulated latency", Format::Us},
    {"event_timing", "event timing", Format::Flag},
};

// Keys shown by a summary of their own (or not at all) rather than as plain scalars.
constexpr std::string_view kSummarised[] = {
    "plan", "costs", "costs_file", "import", "cuda", "calibrated_costs", "predicts_run"};

// Shortest text; a float knob written as a double (lr, betas: 0.8999999761581421) reads as the
// float it was (0.9).
std::string numberText(double v) {
  char buf[32];
  const auto f = static_cast<float>(v);
  const auto res = static_cast<double>(f) == v ? std::to_chars(buf, buf + sizeof buf, f)
                                               : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::optional<std::string> scalarText(Element e) {
  std::int64_t i = 0;
  if (!e.get_int64().get(i)) return std::to_string(i);
  std::uint64_t u = 0;
  if (!e.get_uint64().get(u)) return std::to_string(u);
  double d = 0;
  if (!e.get_double().get(d)) return numberText(d);
  std::string_view s;
  if (!e.get_string().get(s)) return std::string(s);
  bool b = false;
  if (!e.get_bool().get(b)) return std::string(b ? "on" : "off");
  return std::nullopt;
}

std::optional<std::string> formatted(Element e, Format format) {
  double d = 0;
  const bool number = e.is_number() && !e.get_double().get(d);
  switch (format) {
    case Format::Text:
    case Format::Number:
      return scalarText(e);
    case Format::Us:
      if (!number) return std::nullopt;
      return numberText(d) + " µs";
    case Format::MiB:
      if (!number) return std::nullopt;
      return numberText(d) + " MiB";
    case Format::Gbps:
      if (e.is_null() || (number && d <= 0)) return std::string("free");
      if (!number) return std::nullopt;
      return numberText(d) + " Gb/s";
    case Format::Flag: {
      bool b = false;
      if (e.get_bool().get(b)) return std::nullopt;
      return std::string(b ? "on" : "off");
    }
    case Format::IntList: {
      simdjson::dom::array items;
      if (e.get_array().get(items)) return std::nullopt;
      std::string out;
      for (Element item : items) {
        std::int64_t v = 0;
        if (item.get_int64().get(v)) return std::nullopt;
        if (!out.empty()) out += ',';
        out += std::to_string(v);
      }
      return out.empty() ? std::string("none") : out;
    }
    case Format::NumberList: {
      simdjson::dom::array items;
      if (e.get_array().get(items)) return std::nullopt;
      std::string out;
      for (Element item : items) {
        double v = 0;
        if (item.get_double().get(v)) return std::nullopt;
        out += (out.empty() ? "" : ",") + numberText(v);
      }
      return out.empty() ? std::string("none") : out;
    }
    case Format::File: {
      std::string_view s;
      if (e.get_string().get(s)) return std::nullopt;
      return pathBaseName(s);
    }
  }
  return std::nullopt;
}

void addKnobs(const Fields& fields, std::span<const KnobSpec> specs, std::vector<ConfigKnob>& out) {
  for (const KnobSpec* k = specs.data(); k != specs.data() + specs.size(); ++k) {
    auto it = fields.find(k->key);
    if (it == fields.end()) continue;
    if (auto v = formatted(it->second, k->format))
      out.push_back({std::string(k->key), std::string(k->label), std::move(*v)});
  }
}

// Layers described by a cost object (its "repeat"s expanded); nullopt when it has none.
std::optional<std::int64_t> costLayers(Element costs) {
  simdjson::dom::array layers;
  if (costs["layers"].get_array().get(layers)) return std::nullopt;
  std::int64_t n = 0;
  for (Element layer : layers) {
    std::int64_t repeat = 1;
    if (layer["repeat"].get_int64().get(repeat)) repeat = 1;
    n += repeat;
  }
  return n;
}

std::string layersSuffix(const Fields& fields, std::string_view key) {
  auto it = fields.find(key);
  if (it == fields.end()) return {};
  const auto n = costLayers(it->second);
  return n ? " (" + std::to_string(*n) + " layers)" : std::string();
}

// A cost file, or the calibrated costs of a prediction, replaces the uniform flags.
bool addCosts(const Fields& fields, std::vector<ConfigKnob>& out) {
  if (auto it = fields.find("costs_file"); it != fields.end()) {
    if (auto name = formatted(it->second, Format::File)) {
      out.push_back({"costs_file", "costs", *name + layersSuffix(fields, "costs")});
      return true;
    }
  }
  if (fields.count("calibrated_costs")) {
    out.push_back(
        {"calibrated_costs", "costs", "calibrated" + layersSuffix(fields, "calibrated_costs")});
    return true;
  }
  return false;
}

void addCuda(const Fields& fields, std::vector<ConfigKnob>& out) {
  auto it = fields.find("cuda");
  if (it == fields.end()) return;
  std::string_view s;
  if (!it->second["transport"].get_string().get(s))
    out.push_back({"cuda.transport", "transport", std::string(s)});
  if (!it->second["sm_split"].get_string().get(s))
    out.push_back({"cuda.sm_split", "SM shares", std::string(s)});
}

// "rank0.sqlite", or "rank0.sqlite +3" for four files.
std::string filesSummary(simdjson::dom::array files) {
  std::string first;
  std::size_t n = 0;
  for (Element f : files) {
    std::string_view path;
    if (n == 0 && !f["path"].get_string().get(path)) first = pathBaseName(path);
    ++n;
  }
  if (n == 0) return "none";
  return n == 1 ? first : first + " +" + std::to_string(n - 1);
}

void addImport(const Fields& fields, std::vector<ConfigKnob>& out) {
  auto it = fields.find("import");
  if (it == fields.end() || !it->second.is_object()) return;
  const Element imp = it->second;
  std::string_view s;
  if (!imp["format"].get_string().get(s))
    out.push_back({"import.format", "import", std::string(s)});
  simdjson::dom::array files;
  if (!imp["files"].get_array().get(files))
    out.push_back({"import.files", "files", filesSummary(files)});
  if (!imp["align"].get_string().get(s)) out.push_back({"import.align", "align", std::string(s)});
  std::int64_t v = 0;
  if (!imp["residual_skew_ns"].get_int64().get(v))
    out.push_back({"import.residual_skew_ns", "residual skew", formatDuration(v)});
  if (!imp["matched_events"].get_int64().get(v))
    out.push_back({"import.matched_events", "matched events", std::to_string(v)});
  if (!imp["rules"].get_string().get(s)) out.push_back({"import.rules", "rules", pathBaseName(s)});
}

bool isKnown(std::string_view key) {
  auto in = [key](std::span<const KnobSpec> specs) {
    return std::any_of(specs.begin(), specs.end(),
                       [key](const KnobSpec& k) { return k.key == key; });
  };
  if (in(planSpecs()) || in(uniformSpecs()) || in(kModelKnobs)) return true;
  for (auto s : kSummarised)
    if (s == key) return true;
  return false;
}

}  // namespace

std::vector<ConfigKnob> configKnobs(std::string_view configJson) {
  simdjson::dom::parser parser;
  Element doc;
  simdjson::dom::object top;
  if (parser.parse(configJson.data(), configJson.size()).get(doc) || doc.get_object().get(top))
    return {};
  // A model run's plan knobs sit in "plan"; a prediction's too. The outer keys win a clash.
  Fields fields;
  std::vector<std::string_view> others;  // unknown top-level keys, in their order
  for (auto field : top) {
    fields.insert_or_assign(std::string(field.key), field.value);
    if (!isKnown(field.key)) others.push_back(field.key);
  }
  if (auto plan = fields.find("plan"); plan != fields.end() && plan->second.is_object()) {
    simdjson::dom::object inner;
    if (!plan->second.get_object().get(inner))
      for (auto field : inner)
        fields.emplace(std::string(field.key), field.value);  // never replaces an outer key
  }
  // A plan without a backend is a simulation (sim runs, torch-csv imports, predictions).
  std::vector<ConfigKnob> out;
  if (!fields.count("backend") && fields.count("schedule"))
    out.push_back({"backend", "backend", "sim"});
  addKnobs(fields, planSpecs(), out);
  if (auto it = fields.find("predicts_run"); it != fields.end())
    if (auto v = scalarText(it->second)) out.push_back({"predicts_run", "predicts run", *v});
  if (!addCosts(fields, out)) addKnobs(fields, uniformSpecs(), out);
  addKnobs(fields, kModelKnobs, out);
  addCuda(fields, out);
  addImport(fields, out);
  for (std::string_view key : others)
    if (auto v = scalarText(fields.find(key)->second))
      out.push_back({std::string(key), std::string(key), std::move(*v)});
  return out;
}

}  // namespace ps::runtime
