#pragma once
// The stats of a run as CSV (the app's File → Export stats): one row per rank, then a "run" row
// with the step time, the bubble and the steady bubble in their own columns (the step time once
// sat in the busy column of the total row).

#include <string>

#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {

// Columns: scope,rank,busy_ns,bubble_ratio,peak_memory_bytes,step_time_ns,steady_bubble_ratio.
// Empty cells for values a row does not have.
std::string statsCsv(const RunAnalysis& analysis);

}  // namespace ps::trace
