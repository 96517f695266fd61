#pragma once
// The bubble ratio a schedule's paper gives under its own uniform assumptions (F = t, B = 2t,
// I = W = t when split, free links), for the Stats panel to show beside the measured value. Each
// generator in the registry (Schedule.h) may give its closed form: GPipe / 1F1B (p-1)/(m+p-1);
// interleaved and looped BFS (p-1)/(v·m+p-1); ZB-H1 (p-1)/(3m+p-1) (1F1B's bubble time ÷ 3);
// ZB-V (p-1)/(6m+p-1) per step; Chimera with forward doubling (p-2)/(2m+p-2). Schedules whose
// per-step bubble has no closed form here (ZB-H2, DualPipeV, the asynchronous ones, imported
// runs) give nullopt.

#include <optional>
#include <string>
#include <string_view>

namespace ps::runtime {

struct AnalyticBubble {
  std::string formula;  // e.g. "(p-1)/(m+p-1)"
  double value = 0.0;
};

// The named schedule's closed form at (p, m, v); nullopt for an unknown schedule, one without a
// closed form, sizes outside it, or non-positive sizes.
std::optional<AnalyticBubble> analyticBubble(std::string_view schedule, int p, int m, int v);

// The closed forms the registry's rows name (p, m, v >= 1).
std::optional<AnalyticBubble> flushBubble(int p, int m, int v);        // gpipe, 1f1b
std::optional<AnalyticBubble> interleavedBubble(int p, int m, int v);  // interleaved, looped BFS
std::optional<AnalyticBubble> zeroBubbleH1Bubble(int p, int m, int v);
std::optional<AnalyticBubble> zeroBubbleVBubble(int p, int m, int v);
std::optional<AnalyticBubble> chimeraBubble(int p, int m, int v);

}  // namespace ps::runtime
