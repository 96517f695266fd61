#include "runtime/schedules/ClosedForms.h"

#include <cstdint>

#include "runtime/schedules/Schedule.h"

namespace ps::runtime {

// In double throughout: p and m may be any int (2p-1 overflows at the end of int).
std::optional<AnalyticBubble> flushBubble(int p, int m, int) {
  const double P = p, M = m;
  return AnalyticBubble{"(p-1)/(m+p-1)", (P - 1) / (M + P - 1)};
}

std::optional<AnalyticBubble> interleavedBubble(int p, int m, int v) {
  const double P = p, M = m, V = v;
  return AnalyticBubble{"(p-1)/(v·m+p-1)", (P - 1) / (V * M + P - 1)};
}

std::optional<AnalyticBubble> zeroBubbleH1Bubble(int p, int m, int) {
  const double P = p, M = m;
  return AnalyticBubble{"(p-1)/(3m+p-1)", (P - 1) / (3 * M + P - 1)};
}

std::optional<AnalyticBubble> zeroBubbleVBubble(int p, int m, int) {
  const double P = p, M = m;
  if (M < 2 * P - 1) return std::nullopt;  // below 2p-1: a list-scheduled order
  return AnalyticBubble{"(p-1)/(6m+p-1)", (P - 1) / (6 * M + P - 1)};
}

std::optional<AnalyticBubble> chimeraBubble(int p, int m, int) {
  if (p < 2 || m % (2 * std::int64_t{p}) != 0) return std::nullopt;  // with forward doubling
  const double P = p, M = m;
  return AnalyticBubble{"(p-2)/(2m+p-2)", (P - 2) / (2 * M + P - 2)};
}

std::optional<AnalyticBubble> analyticBubble(std::string_view schedule, int p, int m, int v) {
  if (p < 1 || m < 1 || v < 1) return std::nullopt;
  const ScheduleInfo* info = findSchedule(std::string(schedule));
  if (!info || !info->closedForm) return std::nullopt;
  return info->closedForm(p, m, v);
}

}  // namespace ps::runtime
