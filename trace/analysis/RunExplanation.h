#pragma once
// Why the step takes as long as it does, for `report` and the Stats panel: the bubble attribution
// per rank and for the run, and the critical path of the longest step with its ops resolved (so
// that the result outlives the loaded run).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/OpKind.h"
#include "trace/RunTrace.h"
#include "trace/analysis/BubbleAttribution.h"

namespace ps::trace {

struct PathOp {
  int rank = 0;
  OpKind kind = OpKind::F;
  std::int32_t stage = kNoValue, microbatch = kNoValue;
  std::int64_t start = 0, end = 0;
};

struct RunExplanation {
  std::vector<BubbleBreakdown> ranks;  // per rank, summed over steps
  BubbleBreakdown run;                 // summed over ranks
  std::int64_t spanSumNs = 0;          // Σ step spans: a rank's share of cause c = ns / this
  struct Path {
    int step = 0;
    std::int64_t lengthNs = 0;
    std::vector<PathOp> ops;
  };
  std::optional<Path> criticalPath;  // of the longest step
};

RunExplanation explainRun(const RunTrace& run);

// "2B3" style label of a path op (stage, kind, micro-batch), or the kind alone.
std::string pathOpLabel(const PathOp& op);

}  // namespace ps::trace
