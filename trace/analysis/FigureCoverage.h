#pragma once
// Which ops a run's figures cover (issue 11, defect 11): the step time and bubble count only the
// compute ops (F B I W R OPT FILL) of each step, so an imported trace whose timeline is mostly
// OTHER kernels or host ranges showed "bubble 0.00 %" and a 9.4 ms step on a 650 ms timeline
// without saying so. This says it, in numbers the stats pane prints under the report.

#include <cstdint>
#include <string>

#include "trace/RunTrace.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {

struct FigureCoverage {
  std::int64_t computeOps = 0;      // counted: busy time, step spans, bubble
  std::int64_t transferOps = 0;     // SEND/RECV, AR, A2A, OFFLOAD, RELOAD: drawn, links only
  std::int64_t otherOps = 0;        // OTHER: drawn, not counted
  int steps = 0;                    // steps with compute ops
  std::int64_t stepsSpanNs = 0;     // from the first step's start to the last step's end
  std::int64_t timelineSpanNs = 0;  // every op and memory sample
};

FigureCoverage figureCoverage(const RunTrace& run, const RunAnalysis& analysis);

// A short paragraph, e.g. "figures cover 64 compute ops (F B I W R OPT FILL) in 1 step, 9.400 ms
// of the 650.0 ms timeline; 12,000 OTHER ops and 64 transfers are drawn but not counted". Says
// when the bubble and the steady bubble measure different windows. Empty for a run of nothing.
std::string coverageText(const FigureCoverage& coverage, const RunAnalysis& analysis);

}  // namespace ps::trace
