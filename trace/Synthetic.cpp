#include "trace/Synthetic.h"

#include <string>

namespace ps::trace {

RunHeader syntheticGpipeHeader(const SyntheticGpipe& g) {
  RunHeader h;
  h.info.name =
      "synthetic gpipe p=" + std::to_string(g.ranks) + " m=" + std::to_string(g.microbatches);
  h.info.source = "sim";
  h.info.schedule = "gpipe";
  h.info.num_ranks = g.ranks;
  h.info.num_stages = g.ranks;
  h.info.num_microbatches = g.microbatches;
  h.info.config_json = "{\"schedule\":\"gpipe\",\"stages\":" + std::to_string(g.ranks) +
                       ",\"microbatches\":" + std::to_string(g.microbatches) +
                       ",\"chunks\":1,\"fwd_ns\":" + std::to_string(g.fwd_ns) + "}";
  for (int r = 0; r < g.ranks; ++r) {
    h.ranks.push_back({r, "localhost", "synthetic", std::int64_t{16} << 30, 0});
    h.stages.push_back({r, r, r, r});
  }
  return h;
}

TraceBatch syntheticGpipeStep(const SyntheticGpipe& g, int step) {
  TraceBatch b;
  const std::int64_t t = g.fwd_ns, base = step * syntheticGpipeSpan(g);
  const int p = g.ranks, m = g.microbatches;
  for (int s = 0; s < p; ++s) {
    std::int64_t mem = g.param_bytes;
    b.memory.push_back({s, base, mem});
    for (int j = 0; j < m; ++j) {  // forwards: F(s, j) starts at (s + j) t
      const std::int64_t start = base + (s + j) * t;
      b.ops.push_back({s, OpKind::F, s, j, step, start, start + t, {}, {}, {}});
      mem += g.act_bytes;
      b.memory.push_back({s, start, mem});
      if (g.with_sends && s + 1 < p) {
        b.ops.push_back(
            {s, OpKind::SEND_F, s, j, step, start + t, start + t, s + 1, g.act_bytes, {}});
        b.ops.push_back(
            {s + 1, OpKind::RECV_F, s + 1, j, step, start + t, start + t, s, g.act_bytes, {}});
      }
    }
    for (int k = 0; k < m; ++k) {  // backwards, last micro-batch first, 2t each
      const int j = m - 1 - k;
      const std::int64_t start = base + (m + p - 1) * t + 2 * t * (k + (p - 1 - s));
      b.ops.push_back({s, OpKind::B, s, j, step, start, start + 2 * t, {}, {}, {}});
      mem -= g.act_bytes;
      b.memory.push_back({s, start + 2 * t, mem});
      if (g.with_sends && s > 0) {
        b.ops.push_back(
            {s, OpKind::SEND_B, s, j, step, start + 2 * t, start + 2 * t, s - 1, g.act_bytes, {}});
        b.ops.push_back({s - 1,
                         OpKind::RECV_B,
                         s - 1,
                         j,
                         step,
                         start + 2 * t,
                         start + 2 * t,
                         s,
                         g.act_bytes,
                         {}});
      }
    }
  }
  b.metrics.push_back({step, p - 1, "loss", 2.0 / (1.0 + step)});
  return b;
}

}  // namespace ps::trace
