#pragma once
// The two faces of `pipescope-cli report`: a table for people and the JSON object of DESIGN §5.

#include <string>
#include <vector>

#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"
#include "trace/analysis/StepSpeedup.h"

namespace ps::trace {

// One JSON object: run, step_time_ns, bubble_ratio, steady_bubble_ratio, ranks[], links[],
// metrics{} (DESIGN §5), plus status, steps[] (per-step span and bubble) and the extension
// `compute_coverage`: for an imported run, the share of the trace's busy time in recognised
// compute (FigureCoverage.h, BusyCoverage), 0..1; null for runs that were not imported. Under
// kLowComputeCoverage the bubble and step time describe little of the trace. With an explanation
// (explainRun), `ranks[].bubble_breakdown`, the run's `bubble_breakdown` (DESIGN §5's six fields
// plus `collective_ns` and `other_ns`) and `critical_path` {step, length_ns, ops[] {rank, kind,
// stage, microbatch, start_ns, end_ns, share}} (null when the run has no ops). With a sensitivity
// table: `sensitivity` [{kind, stage, rank, step_ns, saved_ns}], best first.
std::string reportJson(const RunAnalysis& a, const RunExplanation* why = nullptr,
                       const std::vector<StepSpeedup>* sensitivity = nullptr);
// A fixed-width table; stable text (golden-tested). Text from the file (run name, source,
// schedule, status message, metric names) is printed through terminalSafe; an imported run
// whose recognised compute covers little of its busy time says so beside the bubble ratio. With
// an explanation: the idle time by cause per rank (points of the step time) and the critical path;
// with a sensitivity table its best rows.
std::string reportText(const RunAnalysis& a, const RunExplanation* why = nullptr,
                       const std::vector<StepSpeedup>* sensitivity = nullptr);

}  // namespace ps::trace
