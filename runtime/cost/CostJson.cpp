#include "runtime/cost/CostJson.h"

#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>

#include "runtime/cost/JsonSyntax.h"
#include "trace/JsonWriter.h"

namespace ps::runtime {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::string_view kFormat = "pipescope-costs";

// "layers[3]" + "fwd_us" → "layers[3].fwd_us"; the top level has an empty path.
std::string join(const std::string& path, std::string_view key) {
  if (key.empty()) return path;
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// Reads typed fields of one JSON object; every error names the file and the JSON path.
class Fields {
 public:
  Fields(std::string_view source, std::string path, object obj)
      : source_(source), path_(std::move(path)), obj_(obj) {}

  Error error(std::string_view key, const std::string& what) const {
    return Error{std::string(source_) + ": " + join(path_, key) + ": " + what};
  }

  // Unknown keys are errors (typos such as "fwd_ns" would otherwise be silently ignored).
  Status onlyKeys(std::initializer_list<std::string_view> allowed) const {
    for (auto [key, value] : obj_) {
      (void)value;
      if (!key.empty() && key.front() == '_') continue;
      bool known = false;
      for (auto k : allowed)
        known = known || k == key;
      if (known) continue;
      std::string list;
      for (auto k : allowed)
        list += (list.empty() ? "" : ", ") + std::string(k);
      return error(key, "unknown key (expected " + list + ")");
    }
    return {};
  }

  std::optional<element> find(std::string_view key) const {
    element e;
    if (obj_.at_key(key).get(e)) return std::nullopt;
    return e;
  }

  // A number >= 0 (or > 0 when `positive`); nullopt when absent.
  Result<std::optional<double>> number(std::string_view key, bool positive = false) const {
    auto e = find(key);
    if (!e) return std::optional<double>{};
    double v = 0;
    const bool ok = !e->get_double().get(v) && std::isfinite(v) && (positive ? v > 0 : v >= 0);
    if (!ok)
      return error(key, positive ? "expected a positive number" : "expected a non-negative number");
    return std::optional<double>{v};
  }

  // A whole number >= minimum; nullopt when absent. 1e6 is accepted as an integer.
  Result<std::optional<std::int64_t>> integer(std::string_view key, std::int64_t minimum) const {
    auto e = find(key);
    if (!e) return std::optional<std::int64_t>{};
    const std::string what =
        minimum > 0 ? "expected a positive integer" : "expected a non-negative integer";
    std::int64_t i = 0;
    if (e->get_int64().get(i)) {
      double d = 0;
      if (e->get_double().get(d) || d != std::floor(d) || !(std::fabs(d) < 9.2e18))
        return error(key, what);
      i = static_cast<std::int64_t>(d);
    }
    if (i < minimum) return error(key, what);
    return std::optional<std::int64_t>{i};
  }

  Result<std::optional<std::string>> text(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<std::string>{};
    std::string_view s;
    if (e->get_string().get(s)) return error(key, "expected a string");
    return std::optional<std::string>{std::string(s)};
  }

  // A nested object or array; nullopt when absent.
  Result<std::optional<Fields>> child(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<Fields>{};
    object o;
    if (e->get_object().get(o)) return error(key, "expected an object");
    return std::optional<Fields>{Fields(source_, join(path_, key), o)};
  }
  Result<std::optional<simdjson::dom::array>> list(std::string_view key) const {
    auto e = find(key);
    if (!e) return std::optional<simdjson::dom::array>{};
    simdjson::dom::array a;
    if (e->get_array().get(a)) return error(key, "expected an array");
    return std::optional<simdjson::dom::array>{a};
  }

  // The i-th element of an array under `key`, which must be an object.
  Result<Fields> item(std::string_view key, std::size_t i, element e) const {
    object o;
    const std::string p = join(path_, key) + "[" + std::to_string(i) + "]";
    if (e.get_object().get(o))
      return Error{std::string(source_) + ": " + p + ": expected an object"};
    return Fields(source_, p, o);
  }

 private:
  std::string_view source_;
  std::string path_;
  object obj_;
};

// Unwraps a Result<T> into `var` or returns its error from the enclosing function.
#define PS_ASSIGN(var, expr)                                       \
  auto var##_result_ = (expr);                                     \
  if (!var##_result_) return std::move(var##_result_).takeError(); \
  auto var = std::move(*var##_result_)

Status readLayer(const Fields& f, CostModel& model) {
  PS_TRY(f.onlyKeys({"name", "repeat", "fwd_us", "bwd_us", "igrad_us", "wgrad_us", "act_bytes",
                     "output_bytes", "param_bytes"}));
  PS_ASSIGN(name, f.text("name"));
  PS_ASSIGN(repeat, f.integer("repeat", 1));
  PS_ASSIGN(fwd, f.number("fwd_us"));
  PS_ASSIGN(bwd, f.number("bwd_us"));
  PS_ASSIGN(igrad, f.number("igrad_us"));
  PS_ASSIGN(wgrad, f.number("wgrad_us"));
  PS_ASSIGN(act, f.integer("act_bytes", 0));
  PS_ASSIGN(output, f.integer("output_bytes", 0));
  PS_ASSIGN(param, f.integer("param_bytes", 0));
  if (!fwd) return f.error("", "missing fwd_us (one micro-batch's forward, microseconds)");
  LayerCost c;
  c.fwdNs = *fwd * 1e3;
  if (bwd && igrad)
    return f.error("igrad_us", "give either bwd_us (+ wgrad_us) or igrad_us + wgrad_us");
  if (bwd) {
    const double w = wgrad ? *wgrad : *bwd / 2;  // no split measured: assume I = W
    if (w > *bwd) return f.error("wgrad_us", "must not exceed bwd_us (it is the W part of it)");
    c.weightGradNs = w * 1e3;
    c.inputGradNs = (*bwd - w) * 1e3;
  } else if (igrad && wgrad) {
    c.inputGradNs = *igrad * 1e3;
    c.weightGradNs = *wgrad * 1e3;
  } else {
    return f.error("", "missing backward: give bwd_us, or igrad_us and wgrad_us");
  }
  c.actBytes = act.value_or(0);
  c.outputBytes = output.value_or(0);
  c.paramBytes = param.value_or(0);
  const std::int64_t n = repeat.value_or(1);
  if (n > 1000000) return f.error("repeat", "expected at most 1000000");
  // Refused before it is pushed: a few large repeats would otherwise exhaust memory.
  if (static_cast<std::int64_t>(model.layers.size()) + n > kMaxLayers)
    return f.error("repeat",
                   "the model would have more than " + std::to_string(kMaxLayers) + " layers");
  const std::string base = name ? *name : "layer" + std::to_string(model.layers.size());
  for (std::int64_t k = 0; k < n; ++k) {
    c.name = n > 1 ? base + "." + std::to_string(k) : base;
    model.layers.push_back(c);
  }
  return {};
}

Status readRank(const Fields& f, CostModel& model) {
  PS_TRY(f.onlyKeys({"speed", "memory_gb", "memory_bytes"}));
  PS_ASSIGN(speed, f.number("speed", true));
  PS_ASSIGN(gb, f.number("memory_gb", true));
  PS_ASSIGN(bytes, f.integer("memory_bytes", 1));
  if (gb && bytes) return f.error("memory_bytes", "give either memory_gb or memory_bytes");
  RankCost r;
  r.speed = speed.value_or(1.0);
  if (gb && *gb > 1e9) return f.error("memory_gb", "expected at most 1e9 (an exbibyte)");
  if (gb) r.memoryCapacityBytes = static_cast<std::int64_t>(std::llround(*gb * kGiB));
  if (bytes) r.memoryCapacityBytes = *bytes;
  model.ranks.push_back(r);
  return {};
}

// Fills `link` from gbps/latency_us, keeping what the object omits.
Status readLink(const Fields& f, LinkCost& link, bool withEnds) {
  if (withEnds) {
    PS_TRY(f.onlyKeys({"src", "dst", "gbps", "latency_us"}));
  } else {
    PS_TRY(f.onlyKeys({"gbps", "latency_us"}));
  }
  PS_ASSIGN(gbps, f.number("gbps"));
  PS_ASSIGN(latency, f.number("latency_us"));
  if (gbps) link.bytesPerNs = *gbps / 8.0;  // Gb/s = bits per ns; 0 = free
  if (latency) link.latencyNs = *latency * 1e3;
  return {};
}

Status readModel(const Fields& top, CostModel& model) {
  PS_TRY(top.onlyKeys({"format", "version", "source", "layers", "ranks", "link", "links",
                       "optimizer_ns_per_param_byte", "state_bytes_per_param_byte"}));
  PS_ASSIGN(format, top.text("format"));
  if (format && *format != kFormat)
    return top.error("format", "expected \"" + std::string(kFormat) + "\"");
  PS_ASSIGN(version, top.integer("version", 1));
  if (version && *version != 1) return top.error("version", "unsupported (this build reads 1)");
  PS_ASSIGN(source, top.text("source"));

  PS_ASSIGN(layers, top.list("layers"));
  if (!layers || layers->size() == 0)
    return top.error("layers", "expected a non-empty array of layers");
  std::size_t i = 0;
  for (element e : *layers) {
    PS_ASSIGN(f, top.item("layers", i++, e));
    PS_TRY(readLayer(f, model));
  }
  PS_ASSIGN(ranks, top.list("ranks"));
  if (ranks) {
    i = 0;
    for (element e : *ranks) {
      PS_ASSIGN(f, top.item("ranks", i++, e));
      PS_TRY(readRank(f, model));
    }
  }
  PS_ASSIGN(link, top.child("link"));
  if (link) PS_TRY(readLink(*link, model.defaultLink, false));
  PS_ASSIGN(links, top.list("links"));
  if (links) {
    i = 0;
    for (element e : *links) {
      PS_ASSIGN(f, top.item("links", i++, e));
      PS_ASSIGN(src, f.integer("src", 0));
      PS_ASSIGN(dst, f.integer("dst", 0));
      if (!src || !dst) return f.error("", "missing src or dst (rank numbers)");
      if (*src == *dst) return f.error("dst", "must differ from src");
      if (*src > 1000000 || *dst > 1000000) return f.error("", "rank number too large");
      LinkCost l = model.defaultLink;
      PS_TRY(readLink(f, l, true));
      model.links[{static_cast<int>(*src), static_cast<int>(*dst)}] = l;
    }
  }
  PS_ASSIGN(opt, top.number("optimizer_ns_per_param_byte"));
  if (opt) model.optimizerNsPerParamByte = *opt;
  PS_ASSIGN(state, top.number("state_bytes_per_param_byte"));
  if (state) model.stateBytesPerParamByte = *state;
  return {};
}

#undef PS_ASSIGN

}  // namespace

Result<CostModel> parseCostJson(std::string_view json, std::string_view sourceName) {
  const std::string source(sourceName);
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(json);
  element doc;
  if (const auto err = parser.parse(padded).get(doc)) {
    if (auto where = findJsonSyntaxError(json))
      return Error{source + ":" + std::to_string(where->line) + ":" +
                   std::to_string(where->column) + ": malformed JSON: expected " + where->expected};
    return Error{source + ": malformed JSON: " + simdjson::error_message(err)};
  }
  object top;
  if (doc.get_object().get(top)) return Error{source + ": expected a JSON object at the top level"};
  CostModel model;
  PS_TRY(readModel(Fields(sourceName, "", top), model));
  PS_TRY(checkCostRanges(model, source));
  return model;
}

Result<CostModel> loadCostJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open for reading"};
  std::ostringstream text;
  text << in.rdbuf();
  return parseCostJson(text.str(), path);
}

std::string writeCostJson(const CostModel& m, std::string_view source) {
  trace::JsonWriter w(true);
  w.beginObject().key("format").value(kFormat).key("version").value(1);
  if (!source.empty()) w.key("source").value(source);
  w.key("layers").beginArray();
  for (const auto& l : m.layers) {
    w.beginObject().key("name").value(l.name);
    w.key("fwd_us").value(l.fwdNs / 1e3);
    w.key("igrad_us").value(l.inputGradNs / 1e3);
    w.key("wgrad_us").value(l.weightGradNs / 1e3);
    w.key("act_bytes").value(l.actBytes);
    if (l.outputBytes > 0) w.key("output_bytes").value(l.outputBytes);
    w.key("param_bytes").value(l.paramBytes).endObject();
  }
  w.endArray();
  if (!m.ranks.empty()) {
    w.key("ranks").beginArray();
    for (const auto& r : m.ranks) {
      w.beginObject().key("speed").value(r.speed);
      if (r.memoryCapacityBytes) w.key("memory_bytes").value(*r.memoryCapacityBytes);
      w.endObject();
    }
    w.endArray();
  }
  auto writeLink = [&w](const LinkCost& l) {
    w.key("gbps").value(l.bytesPerNs * 8.0);
    w.key("latency_us").value(l.latencyNs / 1e3);
  };
  w.key("link").beginObject();
  writeLink(m.defaultLink);
  w.endObject();
  if (!m.links.empty()) {
    w.key("links").beginArray();
    for (const auto& [ends, l] : m.links) {
      w.beginObject().key("src").value(ends.first).key("dst").value(ends.second);
      writeLink(l);
      w.endObject();
    }
    w.endArray();
  }
  w.key("optimizer_ns_per_param_byte").value(m.optimizerNsPerParamByte);
  w.key("state_bytes_per_param_byte").value(m.stateBytesPerParamByte);
  w.endObject();
  return w.str() + "\n";
}

Status saveCostJson(const CostModel& model, const std::string& path, std::string_view source) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{path + ": cannot open for writing"};
  out << writeCostJson(model, source);
  if (!out) return Error{path + ": write failed"};
  return {};
}

}  // namespace ps::runtime
