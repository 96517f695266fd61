#pragma once
// Which ops a run's figures cover (issue 11, defect 11): the step time and bubble count only the
// compute ops (F B I W R OPT FILL) of each step, so an imported trace whose timeline is mostly
// OTHER kernels or host ranges showed "bubble 0.00 %" and a 9.4 ms step on a 650 ms timeline
// without saying so. This says it, in numbers the stats pane prints under the report.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/TraceRecords.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {

// How much of a trace's busy time the recognised compute covers (issue 12, case 11): per rank,
// the union of the compute ops' intervals (F B I W R OPT FILL) against the union of every op's
// (OTHER kernels and host ranges, transfers included), both summed over ranks. A pipeline trace
// is mostly compute; in a trace of something else (a DLRM or DDP step) a few recognised ops (its
// optimizer steps) make a "bubble" that measures nothing, and this says so.
struct BusyCoverage {
  std::int64_t computeBusyNs = 0;
  std::int64_t busyNs = 0;
  // computeBusyNs / busyNs; nullopt when nothing is busy.
  std::optional<double> ratio() const;
  // Under kLowComputeCoverage: the headline figures describe little of the trace.
  bool low() const;
};

// Below this share of the busy time in recognised compute, figures carry a warning.
inline constexpr double kLowComputeCoverage = 0.5;

BusyCoverage busyCoverage(const std::vector<OpRecord>& ops);  // ops in any order
BusyCoverage busyCoverage(const RunTrace& run);
// What an import stored in the run's config_json ("import": {"recognised_busy_ns",
// "raw_busy_ns"}); nullopt for runs that were not imported (or imported before it was stored).
std::optional<BusyCoverage> importedBusyCoverage(const RunInfo& run);
// "recognised compute covers 3.12 % of busy time: not a pipeline trace?" when low, else empty.
std::string lowCoverageNote(const BusyCoverage& coverage);

struct FigureCoverage {
  std::int64_t computeOps = 0;      // counted: busy time, step spans, bubble
  std::int64_t transferOps = 0;     // SEND/RECV, AR, A2A, OFFLOAD, RELOAD: drawn, links only
  std::int64_t otherOps = 0;        // OTHER: drawn, not counted
  int steps = 0;                    // steps with compute ops
  std::int64_t stepsSpanNs = 0;     // from the first step's start to the last step's end
  std::int64_t timelineSpanNs = 0;  // every op and memory sample
  BusyCoverage busy;                // compute's share of the busy time
};

FigureCoverage figureCoverage(const RunTrace& run, const RunAnalysis& analysis);

// A short paragraph, e.g. "figures cover 64 compute ops (F B I W R OPT FILL) in 1 step, 9.400 ms
// of the 650.0 ms timeline; 12,000 OTHER ops and 64 transfers are drawn but not counted". Says
// when the bubble and the steady bubble measure different windows, and when compute covers little
// of the busy time (lowCoverageNote). Empty for a run of nothing.
std::string coverageText(const FigureCoverage& coverage, const RunAnalysis& analysis);

}  // namespace ps::trace
