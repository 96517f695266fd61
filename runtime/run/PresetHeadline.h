#pragma once
// A preset headline's metric read off a run's analysis, as `report --json` gives it, and the
// table of every papers' system against its baseline twin (`presets --headlines`, the README's
// table, which a test keeps equal to it: figures written by hand went stale).

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {

// bubble_ratio, steady_bubble_ratio, step_time_ns, peak_memory_bytes (the largest rank's), or
// peak_memory_spread_bytes (the largest rank's peak less the smallest's), or link_bytes (the
// bytes over every link, summed).
std::optional<double> headlineMetric(const trace::RunAnalysis& a, const std::string& metric);

struct HeadlineRow {
  std::string system, title, metric;
  double baseline = 0, value = 0;  // the metric of NAME-baseline and of NAME, simulated now
};

// Every built-in preset NAME with a NAME-baseline twin, both simulated in memory (sim backend).
// An error names the preset that failed to build or simulate.
Result<std::vector<HeadlineRow>> presetHeadlines(const std::atomic<bool>* cancel = nullptr);

// "5.88 %", "13.200 ms", "56.00 MiB" (the metric's unit).
std::string formatHeadlineValue(const std::string& metric, double value);

// A Markdown table: system, metric, baseline, system's value, change.
std::string headlineTableMarkdown(const std::vector<HeadlineRow>& rows);

}  // namespace ps::runtime
