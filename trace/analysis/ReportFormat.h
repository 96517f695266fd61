#pragma once
// The two faces of `pipescope-cli report`: a table for people and the JSON object of DESIGN §5.

#include <string>

#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {

// One JSON object: run, step_time_ns, bubble_ratio, steady_bubble_ratio, ranks[], links[],
// metrics{} (DESIGN §5), plus status and steps[] (per-step span and bubble).
std::string reportJson(const RunAnalysis& a);
// A fixed-width table; stable text (golden-tested).
std::string reportText(const RunAnalysis& a);

}  // namespace ps::trace
