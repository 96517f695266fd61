#pragma once
// Many steps at a glance (`report --steps`, the app's Steps view): per step its time, bubble and
// idle time by cause, and the median / p90 / max of each over the steps. The causes are the bubble
// attribution's (BubbleAttribution.h) summed per step over the ranks present, never re-derived:
// a step's causes add up to its idle time, Σ over ranks of (span − busy).

#include <array>
#include <cstdint>
#include <vector>

#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {

struct StepRow {
  int step = 0;
  std::int64_t spanNs = 0;
  double bubbleRatio = 0.0;  // RunAnalysis's: mean over ranks of 1 − busy/span
  BubbleBreakdown idle;      // Σ over the ranks present
  // A cause's share of the step, in the bubble ratio's units: ns / (span × ranks present), so
  // the shares of one step add up to its bubble ratio.
  double share(IdleCause cause) const;
  std::size_t ranks = 0;  // ranks present (the shares' denominator)
};

// Median (the mean of the two middle values for an even count), p90 (nearest rank: the
// ⌈0.9·n⌉-th smallest) and max over steps; all zero when there is no step.
struct Spread {
  double median = 0.0, p90 = 0.0, max = 0.0;
};
Spread spreadOf(std::vector<double> values);

struct StepTable {
  std::vector<StepRow> rows;  // RunAnalysis's complete steps, in step order
  Spread spanNs;
  Spread bubble;
  std::array<Spread, kIdleCauseCount> causeShare;  // of StepRow::share
};

// `bubbles` must come from the same run as `analysis` (explainRun(run).bubbles). An incomplete
// last step (RunAnalysis leaves it out) is left out here too. O(parts + steps log steps).
StepTable buildStepTable(const RunAnalysis& analysis, const BubbleAttribution& bubbles);

}  // namespace ps::trace
