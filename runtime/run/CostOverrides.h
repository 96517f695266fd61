#pragma once
// The uniform cost flags (--fwd-us, --bwd-us, --wgrad-us, --act-mb, --param-mb, --link-gbps,
// --link-latency-us) given over a per-layer cost model: a preset's own "costs" or a --costs file.
// README: flags given with a preset override its values. Each flag sets its field on every layer
// (or the model's default link) and leaves the rest of the model as it is; before, the model won
// and the flags were dropped silently, yet recorded in config_json (issue 30, item 10).

#include <optional>

#include "runtime/cost/CostModel.h"
#include "trace/Result.h"

namespace ps::runtime {

struct CostOverrides {
  std::optional<double> fwdUs, bwdUs, wgradUs, actMb, paramMb, linkGbps, linkLatencyUs;
  bool any() const {
    return fwdUs || bwdUs || wgradUs || actMb || paramMb || linkGbps || linkLatencyUs;
  }
};

// `model` with the given fields replaced: fwd, the whole backward (I + W: W kept, or --wgrad-us,
// within it), W alone (I + W kept), activations (which then also cross the stage boundaries, as
// under the uniform flags), parameters, the default link's bandwidth and latency. Errors name
// the flag and its value (the uniform flags' checks), or the layer a value does not fit
// ("--wgrad-us 300: more than layer 0 (embed)'s whole backward, 250 µs; give --bwd-us too").
[[nodiscard]] Result<CostModel> overrideCosts(CostModel model, const CostOverrides& given);

}  // namespace ps::runtime
