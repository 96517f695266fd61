#pragma once
// What a synthesised schedule turns into outside the search: its torch pipelining CSV, the plan
// spec that reads that CSV back (sim --schedule-file, a cpu training run), and the caps a
// generator's own peak sets (--cap-of).

#include <string>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "runtime/synth/Synthesise.h"
#include "trace/Result.h"

namespace ps::runtime::synth {

// The step's F / I / W (or B) per rank as torch's compute_only form, or with the SEND / RECV
// between them (compute_comms, what _PipelineScheduleRuntime runs as it is).
std::string synthCsvText(const BuiltPlan& built, bool withComms);

// The request's plan read from `csvPath` (the CSV of `result`): the same costs, links, caps and
// cut, the order from the file.
PlanSpec replaySpec(const SynthRequest& request, const SynthResult& result,
                    const std::string& csvPath);

// The result against the fastest generator that fits: "4.91 % shorter than zb-h1, the fastest
// generator under the caps (6.454 ms)" ("the fastest generator (...)" with no cap), "the same
// step as ...", or that every one is refused.
std::string gainSummary(const SynthResult& result);

// --cap-of SCHEDULE: every rank's cap (GiB, as --rank-memory-gb takes it) set to the largest
// peak `schedule` reaches at the request's shape and cut, without caps.
Result<std::vector<double>> capsOfSchedule(const SynthRequest& request,
                                           const std::string& schedule);

}  // namespace ps::runtime::synth
