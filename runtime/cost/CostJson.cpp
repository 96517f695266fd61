#include "runtime/cost/CostJson.h"

#include <simdjson.h>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <sstream>

#include "runtime/cost/JsonFields.h"
#include "runtime/cost/JsonSyntax.h"
#include "trace/FileText.h"
#include "trace/JsonWriter.h"

namespace ps::runtime {
namespace {

using json::Fields;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::string_view kFormat = "pipescope-costs";

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

// {"gpus_per_node": G | "nodes": [a, b, ...], "inter_node": {"gbps": ..., "latency_us": ...}}
Status readTopology(const Fields& f, Topology& topology) {
  PS_TRY(f.onlyKeys({"gpus_per_node", "nodes", "inter_node", "shared_link"}));
  PS_ASSIGN(shared, f.boolean("shared_link"));
  if (shared) topology.sharedLink = *shared;
  PS_ASSIGN(gpus, f.integer("gpus_per_node", 1));
  PS_ASSIGN(nodes, f.list("nodes"));
  if (gpus && nodes) return f.error("nodes", "give either gpus_per_node or nodes");
  if (!gpus && !nodes)
    return f.error("gpus_per_node", "missing (devices per node, or \"nodes\": their sizes)");
  if (gpus && *gpus > 1000000) return f.error("gpus_per_node", "too large");
  if (gpus) topology.gpusPerNode = static_cast<int>(*gpus);
  if (nodes) {
    for (auto e : *nodes) {
      std::int64_t n = 0;
      if (e.get_int64().get(n) || n < 1 || n > 4096 || topology.nodeSizes.size() >= 4096)
        return f.error("nodes",
                       "each node's devices: a whole number in 1..4096 (4096 nodes at most)");
      topology.nodeSizes.push_back(static_cast<int>(n));
    }
    if (topology.nodeSizes.empty()) return f.error("nodes", "give at least one node");
  }
  PS_ASSIGN(inter, f.child("inter_node"));
  if (inter) PS_TRY(readLink(*inter, topology.interNode, false));
  return {};
}

Status readModel(const Fields& top, CostModel& model) {
  PS_TRY(top.onlyKeys({"format", "version", "source", "layers", "ranks", "link", "links",
                       "topology", "optimizer_ns_per_param_byte", "state_bytes_per_param_byte"}));
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
  PS_ASSIGN(topology, top.child("topology"));
  if (topology) PS_TRY(readTopology(*topology, model.topology));
  PS_ASSIGN(opt, top.number("optimizer_ns_per_param_byte"));
  if (opt) model.optimizerNsPerParamByte = *opt;
  PS_ASSIGN(state, top.number("state_bytes_per_param_byte"));
  if (state) model.stateBytesPerParamByte = *state;
  return {};
}

}  // namespace

Result<CostModel> parseCostJson(std::string_view json, std::string_view sourceName) {
  const std::string source(sourceName);
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(json);
  PS_ASSIGN(top, json::parseTopObject(parser, padded, json, source));
  CostModel model;
  PS_TRY(readModel(Fields(sourceName, "", top), model));
  PS_TRY(checkCostRanges(model, source));
  return model;
}

Result<CostModel> loadCostJson(const std::string& path) {
  auto text = trace::readTextFile(path, trace::kMaxFlagFileBytes, "cost file");
  if (!text) return std::move(text).takeError();
  return parseCostJson(*text, path);
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
  if (m.topology.present()) {
    w.key("topology").beginObject();
    if (m.topology.nodeSizes.empty()) {
      w.key("gpus_per_node").value(m.topology.gpusPerNode);
    } else {
      w.key("nodes").beginArray();
      for (int n : m.topology.nodeSizes)
        w.value(n);
      w.endArray();
    }
    if (!m.topology.sharedLink) w.key("shared_link").value(false);
    w.key("inter_node").beginObject();
    writeLink(m.topology.interNode);
    w.endObject().endObject();
  }
  w.key("optimizer_ns_per_param_byte").value(m.optimizerNsPerParamByte);
  w.key("state_bytes_per_param_byte").value(m.stateBytesPerParamByte);
  w.endObject();
  return w.str() + "\n";
}

Status saveCostJson(const CostModel& model, const std::string& path, std::string_view source) {
  return trace::writeTextFile(path, writeCostJson(model, source), "cost file");
}

}  // namespace ps::runtime
