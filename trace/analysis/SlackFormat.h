#pragma once
// `report --slack`: each (stage, kind)'s least slack (how much every one of its ops could grow
// before its step ends later; 0 on the critical path) and, in --json, every op's slack_ns.

#include <string>

#include "trace/RunTrace.h"
#include "trace/analysis/OpSlack.h"

namespace ps::trace {

// Per (stage, kind): its ops, how many are critical (slack 0), least, median and most slack.
std::string slackText(const RunTrace& run, const OpSlackTable& slack);
// {"by_stage_kind": [{"stage", "kind", "least_slack_ns"}], "ops": [{"rank", "kind", "stage",
// "microbatch", "step", "start_ns", "end_ns", "slack_ns"}]} (ops of every step, per rank in start
// order).
std::string slackJson(const RunTrace& run, const OpSlackTable& slack);

}  // namespace ps::trace
