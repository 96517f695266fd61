#include "runtime/cost/CostModel.h"

namespace ps::runtime {

Result<CostModel> uniformCostModel(const UniformCostFlags& f) {
  if (f.layers <= 0)
    return Error{"--layers must be positive (got " + std::to_string(f.layers) + ")"};
  if (!(f.fwdUs > 0))
    return Error{"--fwd-us must be positive (got " + std::to_string(f.fwdUs) + ")"};
  if (!(f.bwdUs > 0))
    return Error{"--bwd-us must be positive (got " + std::to_string(f.bwdUs) + ")"};
  if (f.wgradUs < 0 || f.wgradUs > f.bwdUs)
    return Error{"--wgrad-us must be between 0 and --bwd-us (got " + std::to_string(f.wgradUs) +
                 ", --bwd-us " + std::to_string(f.bwdUs) + ")"};
  if (f.actMb < 0) return Error{"--act-mb must not be negative"};
  if (f.paramMb < 0) return Error{"--param-mb must not be negative"};
  if (f.linkGbps && !(*f.linkGbps > 0))
    return Error{"--link-gbps must be positive (got " + std::to_string(*f.linkGbps) + ")"};
  if (f.linkLatencyUs < 0) return Error{"--link-latency-us must not be negative"};

  CostModel m;
  constexpr double kMiB = 1024.0 * 1024.0;
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

}  // namespace ps::runtime
