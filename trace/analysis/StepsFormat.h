#pragma once
// The faces of `pipescope-cli report --steps` (StepTable.h, Stragglers.h): a table for people,
// the `steps_detail` JSON object, and the one line a plain `report` adds for flagged ranks.

#include <string>

#include "trace/analysis/StepTable.h"
#include "trace/analysis/Stragglers.h"

namespace ps::trace {

// The spread over steps (median / p90 / max of step time, bubble and each idle cause), the
// per-step rows (time, bubble, causes, who finished last, culprits) and the straggler table.
std::string stepsText(const StepTable& table, const StragglerTable& stragglers);

// One JSON object: {culprit_margin, flag_share, summary{step_time_ns, bubble_ratio, <cause>_share:
// {median, p90, max}}, steps[{step, span_ns, bubble_ratio, idle{<cause>_ns}, last_rank,
// last_by_ns, culprits[], victims[]}], stragglers[{rank, steps, finished_last, last_by_mean_ns,
// last_as_culprit, last_as_victim, culprit_steps, culprit_share, culprit_slowness_mean,
// culprit_excess_mean_ns, victim_steps, victim_share, victim_wait_mean_ns, flagged}]}.
std::string stepsJson(const StepTable& table, const StragglerTable& stragglers);

// "stragglers: rank 2 was the culprit in 97 of 100 steps (its ops 1.95x slower than its peers');
// ..." plus a newline; empty when no rank is flagged.
std::string flaggedStragglersLine(const StragglerTable& stragglers);

// `object` (one JSON object, as reportJson prints it) with `"key": value` added as its last
// member, `value` indented to sit one level in.
std::string withJsonMember(const std::string& object, const std::string& key,
                           const std::string& value);

}  // namespace ps::trace
