#include "runtime/cost/CostModel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ps::runtime {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMaxUs = kMaxOpNs / 1e3;
constexpr double kMaxMb = static_cast<double>(kMaxLayerBytes) / kMiB;

std::string flagValue(const char* flag, double v) {
  return std::string(flag) + " " + formatNumber(v);
}

// A time flag in µs: finite, within (0, kMaxUs] (or [0, ...] when zero is allowed).
Status checkUs(const char* flag, double v, bool allowZero) {
  if (!std::isfinite(v) || v < 0 || (!allowZero && v == 0))
    return Error{flag + std::string(allowZero ? " must not be negative" : " must be positive") +
                 " (got " + formatNumber(v) + ")"};
  if (v > kMaxUs)
    return Error{flagValue(flag, v) + ": one op would take " + formatNumber(v / 1e6) +
                 " s (limit " + formatNumber(kMaxUs / 1e6) + " s)"};
  return {};
}

Status checkMb(const char* flag, double v) {
  if (!std::isfinite(v) || v < 0)
    return Error{flag + std::string(" must not be negative (got ") + formatNumber(v) + ")"};
  if (v > kMaxMb)
    return Error{flagValue(flag, v) + ": more than " + formatNumber(kMaxMb) +
                 " MiB (1 TiB) per layer and micro-batch"};
  return {};
}

}  // namespace

std::string formatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Result<CostModel> uniformCostModel(const UniformCostFlags& f) {
  if (f.layers <= 0)
    return Error{"--layers must be positive (got " + std::to_string(f.layers) + ")"};
  if (f.layers > kMaxLayers)
    return Error{"--layers " + std::to_string(f.layers) + ": more than " +
                 std::to_string(kMaxLayers)};
  PS_TRY(checkUs("--fwd-us", f.fwdUs, false));
  PS_TRY(checkUs("--bwd-us", f.bwdUs, false));
  PS_TRY(checkUs("--wgrad-us", f.wgradUs, true));
  if (f.wgradUs > f.bwdUs)
    return Error{"--wgrad-us must be between 0 and --bwd-us (got " + formatNumber(f.wgradUs) +
                 ", --bwd-us " + formatNumber(f.bwdUs) + ")"};
  PS_TRY(checkMb("--act-mb", f.actMb));
  PS_TRY(checkMb("--param-mb", f.paramMb));
  if (f.linkGbps && !(std::isfinite(*f.linkGbps) && *f.linkGbps > 0))
    return Error{"--link-gbps must be positive (got " + formatNumber(*f.linkGbps) + ")"};
  PS_TRY(checkUs("--link-latency-us", f.linkLatencyUs, true));
  if (f.linkGbps) {
    // One boundary's transfer (one layer's activations) must fit: bytes / (Gb/s / 8) ns.
    const double ns = f.actMb * kMiB / (*f.linkGbps / 8.0);
    if (ns > kMaxOpNs)
      return Error{flagValue("--link-gbps", *f.linkGbps) + ": one " + formatNumber(f.actMb) +
                   " MiB transfer would take " + formatNumber(ns / 1e9) + " s (limit " +
                   formatNumber(kMaxOpNs / 1e9) + " s)"};
  }

  CostModel m;
  m.layers.reserve(static_cast<std::size_t>(f.layers));
  for (int l = 0; l < f.layers; ++l) {
    LayerCost c;
    c.fwdNs = f.fwdUs * 1e3;
    c.weightGradNs = f.wgradUs * 1e3;
    c.inputGradNs = (f.bwdUs - f.wgradUs) * 1e3;
    c.actBytes = static_cast<std::int64_t>(f.actMb * kMiB);
    c.paramBytes = static_cast<std::int64_t>(f.paramMb * kMiB);
    c.name = "layer" + std::to_string(l);
    m.layers.push_back(c);
  }
  if (f.linkGbps) m.defaultLink.bytesPerNs = *f.linkGbps / 8.0;  // Gb/s = bits per ns
  m.defaultLink.latencyNs = f.linkLatencyUs * 1e3;
  return m;
}

Status checkCostRanges(const CostModel& model, const std::string& source) {
  const std::string prefix = source + ": ";
  if (model.layers.size() > static_cast<std::size_t>(kMaxLayers))
    return Error{prefix + std::to_string(model.layers.size()) + " layers (limit " +
                 std::to_string(kMaxLayers) + ")"};
  auto badTime = [](double ns) { return !std::isfinite(ns) || ns < 0 || ns > kMaxOpNs; };
  auto badBytes = [](std::int64_t b) { return b < 0 || b > kMaxLayerBytes; };
  std::int64_t maxBytes = 0;
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const LayerCost& c = model.layers[l];
    const std::string layer = prefix + "layer " + std::to_string(l) + " (" + c.name + "): ";
    if (badTime(c.fwdNs) || badTime(c.inputGradNs) || badTime(c.weightGradNs))
      return Error{layer + "a time outside 0.." + formatNumber(kMaxUs) + " µs"};
    if (badBytes(c.actBytes) || badBytes(c.outputBytes) || badBytes(c.paramBytes))
      return Error{layer + "a byte count outside 0.." + std::to_string(kMaxLayerBytes)};
    maxBytes = std::max({maxBytes, c.actBytes, c.outputBytes});
  }
  for (std::size_t r = 0; r < model.ranks.size(); ++r) {
    const double speed = model.ranks[r].speed;
    if (!std::isfinite(speed) || speed < 1e-6 || speed > 1e6)
      return Error{prefix + "rank " + std::to_string(r) + ": speed " + formatNumber(speed) +
                   " outside 1e-06..1e+06"};
  }
  auto checkLink = [&](const LinkCost& link, const std::string& what) -> Status {
    if (!std::isfinite(link.bytesPerNs) || link.bytesPerNs < 0 || badTime(link.latencyNs))
      return Error{prefix + what + ": bandwidth or latency out of range"};
    if (link.bytesPerNs > 0 && static_cast<double>(maxBytes) / link.bytesPerNs > kMaxOpNs)
      return Error{prefix + what + ": " + formatNumber(link.bytesPerNs * 8) + " Gb/s: one " +
                   std::to_string(maxBytes) + "-byte transfer would take " +
                   formatNumber(static_cast<double>(maxBytes) / link.bytesPerNs / 1e9) +
                   " s (limit " + formatNumber(kMaxOpNs / 1e9) + " s)"};
    return {};
  };
  PS_TRY(checkLink(model.defaultLink, "link"));
  for (const auto& [ends, link] : model.links)
    PS_TRY(
        checkLink(link, "link " + std::to_string(ends.first) + "→" + std::to_string(ends.second)));
  if (model.topology.gpusPerNode < 0)
    return Error{prefix + "topology: gpus_per_node " + std::to_string(model.topology.gpusPerNode) +
                 " is negative"};
  for (int size : model.topology.nodeSizes)
    if (size < 1) return Error{prefix + "topology: a node of " + std::to_string(size) + " devices"};
  if (model.topology.present()) PS_TRY(checkLink(model.topology.interNode, "inter_node"));
  if (!std::isfinite(model.optimizerNsPerParamByte) || model.optimizerNsPerParamByte < 0 ||
      model.optimizerNsPerParamByte > 1e3)
    return Error{prefix + "optimizer_ns_per_param_byte " +
                 formatNumber(model.optimizerNsPerParamByte) + " outside 0..1000"};
  if (!std::isfinite(model.stateBytesPerParamByte) || model.stateBytesPerParamByte < 0 ||
      model.stateBytesPerParamByte > 1e3)
    return Error{prefix + "state_bytes_per_param_byte " +
                 formatNumber(model.stateBytesPerParamByte) + " outside 0..1000"};
  return {};
}

Result<CostModel> operatorCosts(const CostModel& model, int k) {
  if (k < 1 || k > 64) return Error{"--operators " + std::to_string(k) + ": give 1..64"};
  if (static_cast<long>(model.layers.size()) * k > kMaxLayers)
    return Error{"--operators " + std::to_string(k) + ": " + std::to_string(model.layers.size()) +
                 " layers x " + std::to_string(k) + " operators pass " +
                 std::to_string(kMaxLayers)};
  CostModel out = model;
  out.layers.clear();
  out.layers.reserve(model.layers.size() * static_cast<std::size_t>(k));
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const LayerCost& layer = model.layers[l];
    const std::string name = layer.name.empty() ? "layer " + std::to_string(l) : layer.name;
    const std::int64_t output = layer.outputBytes > 0 ? layer.outputBytes : layer.actBytes;
    for (int j = 0; j < k; ++j) {
      const bool last = j == k - 1;
      LayerCost op;
      op.fwdNs = layer.fwdNs / k;
      op.inputGradNs = layer.inputGradNs / k;
      op.weightGradNs = layer.weightGradNs / k;
      op.actBytes = layer.actBytes / k + (last ? layer.actBytes % k : 0);
      op.paramBytes = layer.paramBytes / k + (last ? layer.paramBytes % k : 0);
      op.outputBytes = output;
      op.name = name + " op " + std::to_string(j + 1) + "/" + std::to_string(k);
      out.layers.push_back(std::move(op));
    }
  }
  return out;
}

std::vector<int> Topology::sizes(int ranks) const {
  if (!nodeSizes.empty()) return nodeSizes;
  std::vector<int> out;
  for (int first = 0; gpusPerNode > 0 && first < ranks; first += gpusPerNode)
    out.push_back(std::min(gpusPerNode, ranks - first));
  return out;
}

}  // namespace ps::runtime
