#include "trace/analysis/ConfigKnobs.h"

#include <simdjson.h>

#include <charconv>
#include <map>
#include <set>

#include "trace/Units.h"

namespace ps::trace {
namespace {

using Element = simdjson::dom::element;
using Fields = std::map<std::string, Element, std::less<>>;

enum class Format { Text, Number, Us, MiB, Gbps, Flag, IntList, NumberList, File };

struct KnobSpec {
  std::string_view key;
  std::string_view label;
  Format format;
};

// The order people read a plan in: what ran it, its shape, its costs and links, the model.
constexpr KnobSpec kPlanKnobs[] = {
    {"backend", "backend", Format::Text},
    {"schedule", "schedule", Format::Text},
    {"schedule_file", "schedule file", Format::File},
    {"stages", "stages", Format::Number},
    {"microbatches", "micro-batches", Format::Number},
    {"chunks", "chunks", Format::Number},
    {"layers", "layers", Format::Number},
    {"boundaries", "boundaries", Format::IntList},
    {"steps", "steps", Format::Number},
    {"optimizer_sync", "optimizer sync", Format::Text},
    {"recompute", "recompute", Format::Flag},
    {"split_backward", "split backward", Format::Flag},
    {"max_deferred_w", "max deferred W", Format::Number},
    {"forward_only", "forward only", Format::Flag},
    {"balance_activations", "balance activations", Format::Flag},
    {"weight_versions", "weight versions", Format::Text},
    {"stage_graph", "stage graph", Format::Text},
    {"a2a_mb", "expert all-to-all", Format::MiB},
    {"a2a", "all-to-all", Format::Text},
    {"fetch_mb", "embedding fetch", Format::MiB},
    {"fetch", "fetch", Format::Text},
    {"fetch_ahead", "fetch ahead", Format::Number},
    {"frozen_us", "frozen forward µs", Format::Number},
    {"fill", "frozen work", Format::Text},
    {"token_slices", "token slices", Format::Text},
    {"seq_tokens", "sequence tokens", Format::Number},
    {"attention_share", "attention share", Format::Number},
    {"seq_lengths", "sequence lengths", Format::Text},
    {"microbatching", "micro-batching", Format::Text},
    {"microbatch_tokens", "micro-batch tokens", Format::Number},
    {"microbatch_overhead", "micro-batch overhead", Format::Number},
    {"partition", "partition", Format::Text},
    {"time_slack", "time slack", Format::Number},
    {"dp", "data parallel", Format::Number},
    {"topology", "topology", Format::Text},
    {"inter_gbps", "inter-node link", Format::Gbps},
    {"inter_latency_us", "inter-node latency", Format::Us},
    {"mapping", "mapping", Format::Text},
    {"rank_speed", "rank speed", Format::NumberList},
    {"rank_memory_gb", "rank memory GiB", Format::NumberList},
};

// The uniform cost flags: meaningless where a cost file or calibrated costs replace them.
constexpr KnobSpec kUniformKnobs[] = {
    {"fwd_us", "fwd", Format::Us},
    {"bwd_us", "bwd", Format::Us},
    {"wgrad_us", "wgrad", Format::Us},
    {"act_mb", "act", Format::MiB},
    {"param_mb", "params", Format::MiB},
    {"link_gbps", "link", Format::Gbps},
    {"link_latency_us", "latency", Format::Us},
};

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

void addKnobs(const Fields& fields, const KnobSpec* begin, const KnobSpec* end,
              std::vector<ConfigKnob>& out) {
  for (const KnobSpec* k = begin; k != end; ++k) {
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
  auto in = [key](const KnobSpec* b, const KnobSpec* e) {
    for (; b != e; ++b)
      if (b->key == key) return true;
    return false;
  };
  if (in(std::begin(kPlanKnobs), std::end(kPlanKnobs)) ||
      in(std::begin(kUniformKnobs), std::end(kUniformKnobs)) ||
      in(std::begin(kModelKnobs), std::end(kModelKnobs)))
    return true;
  for (auto s : kSummarised)
    if (s == key) return true;
  return false;
}

}  // namespace

std::string pathBaseName(std::string_view path) {
  while (path.size() > 1 && (path.back() == '/' || path.back() == '\\'))
    path.remove_suffix(1);
  const auto slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

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
  addKnobs(fields, std::begin(kPlanKnobs), std::end(kPlanKnobs), out);
  if (auto it = fields.find("predicts_run"); it != fields.end())
    if (auto v = scalarText(it->second)) out.push_back({"predicts_run", "predicts run", *v});
  if (!addCosts(fields, out))
    addKnobs(fields, std::begin(kUniformKnobs), std::end(kUniformKnobs), out);
  addKnobs(fields, std::begin(kModelKnobs), std::end(kModelKnobs), out);
  addCuda(fields, out);
  addImport(fields, out);
  for (std::string_view key : others)
    if (auto v = scalarText(fields.find(key)->second))
      out.push_back({std::string(key), std::string(key), std::move(*v)});
  return out;
}

}  // namespace ps::trace
