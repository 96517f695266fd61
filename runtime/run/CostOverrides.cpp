#include "runtime/run/CostOverrides.h"

#include <algorithm>
#include <string>

namespace ps::runtime {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Each value given, checked as the uniform flags are (one layer, the rest valid fillers).
Status checkValues(const CostOverrides& o) {
  UniformCostFlags f;
  f.layers = 1;
  f.fwdUs = o.fwdUs.value_or(1);
  f.wgradUs = o.wgradUs.value_or(0);
  f.bwdUs = o.bwdUs.value_or(std::max(f.wgradUs, 1.0));
  f.actMb = o.actMb.value_or(0);
  f.paramMb = o.paramMb.value_or(0);
  f.linkGbps = o.linkGbps;
  f.linkLatencyUs = o.linkLatencyUs.value_or(0);
  auto model = uniformCostModel(f);
  if (!model) return std::move(model).takeError();
  return {};
}

}  // namespace

Result<CostModel> overrideCosts(CostModel model, const CostOverrides& o) {
  PS_TRY(checkValues(o));
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    LayerCost& c = model.layers[l];
    if (o.fwdUs) c.fwdNs = *o.fwdUs * 1e3;
    if (o.bwdUs || o.wgradUs) {
      const double whole = o.bwdUs ? *o.bwdUs * 1e3 : c.inputGradNs + c.weightGradNs;
      const double w = o.wgradUs ? *o.wgradUs * 1e3 : std::min(c.weightGradNs, whole);
      if (w > whole)
        return Error{"--wgrad-us " + formatNumber(*o.wgradUs) + ": more than layer " +
                     std::to_string(l) + (c.name.empty() ? "" : " (" + c.name + ")") +
                     "'s whole backward, " + formatNumber(whole / 1e3) + " µs; give --bwd-us too"};
      c.weightGradNs = w;
      c.inputGradNs = whole - w;
    }
    if (o.actMb) {
      c.actBytes = static_cast<std::int64_t>(*o.actMb * kMiB);
      c.outputBytes = 0;  // the boundary carries the activations, as with the uniform flags
    }
    if (o.paramMb) c.paramBytes = static_cast<std::int64_t>(*o.paramMb * kMiB);
  }
  if (o.linkGbps) model.defaultLink.bytesPerNs = *o.linkGbps / 8.0;  // Gb/s = bits per ns
  if (o.linkLatencyUs) model.defaultLink.latencyNs = *o.linkLatencyUs * 1e3;
  PS_TRY(checkCostRanges(model, "the cost flags"));
  return model;
}

}  // namespace ps::runtime
