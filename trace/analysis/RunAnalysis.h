#pragma once
// The numbers every view and report shows, computed from a loaded run with the one bubble
// definition of DESIGN §4.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/IncompleteStep.h"
#include "trace/analysis/Saturating.h"

namespace ps::trace {

struct StepStats {
  int step = 0;
  std::int64_t start_ns = 0;  // earliest start of the step's compute ops over all ranks
  std::int64_t end_ns = 0;    // latest end
  std::vector<std::int64_t> rank_busy_ns;  // union of compute intervals, per rank
  std::vector<double> rank_bubble;         // 1 - busy/span, per rank
  double bubble_ratio = 0.0;               // mean over ranks
  std::int64_t span_ns() const { return satSub(end_ns, start_ns); }
};

struct RankSummary {
  int rank = 0;
  std::int64_t busy_ns = 0;            // union of compute intervals over the whole run
  std::optional<double> bubble_ratio;  // mean over steps of the rank's per-step ratio
  std::optional<std::int64_t> peak_memory_bytes;
  std::optional<std::int64_t> memory_capacity_bytes;
};

struct LinkSummary {
  int src = 0;
  int dst = 0;
  std::int64_t bytes = 0;    // sum over SEND ops from src to dst
  std::int64_t busy_ns = 0;  // union of those SEND ops' intervals
  std::int64_t ops = 0;
};

struct RunAnalysis {
  RunInfo run;
  std::optional<int> chunks;
  std::vector<StepStats> steps;  // without incomplete_last_step
  // An unfinished run's partial last step, left out of steps and every figure made from them
  // (IncompleteStep.h).
  std::optional<IncompleteStep> incomplete_last_step;
  std::optional<std::int64_t> step_time_ns;  // mean step span
  // Median time from one step's start to the next's (>= 2 steps): how often a step begins. It
  // is the span where steps follow each other; longer where work the analysis does not count as
  // compute runs between them (an imported DDP trace: 9.4 ms spans, a step every 217 ms);
  // shorter where steps overlap (asynchronous schedules).
  std::optional<std::int64_t> step_cadence_ns;
  std::optional<double> bubble_ratio;         // mean over steps
  std::optional<double> steady_bubble_ratio;  // DESIGN §4, needs >= 3 steps
  std::vector<RankSummary> ranks;
  std::vector<LinkSummary> links;         // sorted by (src, dst)
  std::map<std::string, double> metrics;  // last value (highest step) of each metric
};

RunAnalysis analyzeRun(const RunTrace& run);

// Steady-state bubble (DESIGN §4): per rank, 1 - busy/window over the window from the rank's
// first compute op of step 1 to its first compute op of step N-1, averaged over ranks.
std::optional<double> steadyStateBubble(const RunTrace& run, const std::vector<int>& steps);

// Length of the union of [start, end) intervals given sorted by start (saturating at INT64_MAX).
std::int64_t unionLength(const std::vector<std::int64_t>& start,
                         const std::vector<std::int64_t>& end);

}  // namespace ps::trace
