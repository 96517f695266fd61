#pragma once
// A preset headline's metric read off a run's analysis, as `report --json` gives it.

#include <optional>
#include <string>

#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {

// bubble_ratio, steady_bubble_ratio, step_time_ns, peak_memory_bytes (the largest rank's), or
// peak_memory_spread_bytes (the largest rank's peak less the smallest's), or link_bytes (the
// bytes over every link, summed).
std::optional<double> headlineMetric(const trace::RunAnalysis& a, const std::string& metric);

}  // namespace ps::runtime
