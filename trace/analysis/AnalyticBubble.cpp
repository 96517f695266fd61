#include "trace/analysis/AnalyticBubble.h"

#include <cstdint>

namespace ps::trace {

std::optional<AnalyticBubble> analyticBubble(std::string_view schedule, int p, int m, int v) {
  if (p < 1 || m < 1 || v < 1) return std::nullopt;
  const double P = p, M = m, V = v;
  if (schedule == "gpipe" || schedule == "1f1b")
    return AnalyticBubble{"(p-1)/(m+p-1)", (P - 1) / (M + P - 1)};
  if (schedule == "interleaved-1f1b" || schedule == "looped-bfs")
    return AnalyticBubble{"(p-1)/(v·m+p-1)", (P - 1) / (V * M + P - 1)};
  if (schedule == "zb-h1") return AnalyticBubble{"(p-1)/(3m+p-1)", (P - 1) / (3 * M + P - 1)};
  if (schedule == "zb-v" && M >= 2 * P - 1)  // in double: p may be any int
    return AnalyticBubble{"(p-1)/(6m+p-1)", (P - 1) / (6 * M + P - 1)};
  if (schedule == "chimera" && p >= 2 && m % (2 * std::int64_t{p}) == 0)
    return AnalyticBubble{"(p-2)/(2m+p-2)", (P - 2) / (2 * M + P - 2)};
  return std::nullopt;
}

}  // namespace ps::trace
