#include "runtime/run/PresetHeadline.h"

#include <algorithm>
#include <cstdio>

#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"

namespace ps::runtime {

std::optional<double> headlineMetric(const trace::RunAnalysis& a, const std::string& metric) {
  if (metric == "bubble_ratio") return a.bubble_ratio;
  if (metric == "steady_bubble_ratio") return a.steady_bubble_ratio;
  if (metric == "step_time_ns" && a.step_time_ns) return static_cast<double>(*a.step_time_ns);
  if (metric == "link_bytes") {
    double sum = 0;
    for (const auto& l : a.links)
      sum += static_cast<double>(l.bytes);
    return sum;
  }
  if (metric == "peak_memory_bytes" || metric == "peak_memory_spread_bytes") {
    std::optional<double> most, least;
    for (const auto& r : a.ranks)
      if (r.peak_memory_bytes) {
        const auto peak = static_cast<double>(*r.peak_memory_bytes);
        most = std::max(most.value_or(peak), peak);
        least = std::min(least.value_or(peak), peak);
      }
    if (!most || metric == "peak_memory_bytes") return most;
    return *most - *least;
  }
  return std::nullopt;
}

namespace {

bool isRatio(const std::string& metric) {
  return metric.find("bubble") != std::string::npos;
}
bool isBytes(const std::string& metric) {
  return metric.find("bytes") != std::string::npos;
}

std::string printed(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

Result<double> simulatedHeadline(const Preset& preset, const std::string& metric,
                                 const std::atomic<bool>* cancel) {
  RunPlanRequest request;
  request.spec = preset.spec;
  RunControl control;
  control.cancel = cancel;
  auto preview = previewPlan(request, control);
  if (!preview) return Error{"preset " + preset.name + ": " + preview.error()};
  const auto value = headlineMetric(trace::analyzeRun(*preview->trace), metric);
  if (!value) return Error{"preset " + preset.name + ": its run has no " + metric};
  return *value;
}

}  // namespace

Result<std::vector<HeadlineRow>> presetHeadlines(const std::atomic<bool>* cancel) {
  std::vector<HeadlineRow> rows;
  for (const Preset& p : builtinPresets().presets) {
    auto baseline = findPreset(p.name + "-baseline");
    if (!baseline) continue;
    HeadlineRow row{p.name, p.title, p.headline.metric};
    auto before = simulatedHeadline(*baseline, row.metric, cancel);
    PS_TRY(before);
    auto after = simulatedHeadline(p, row.metric, cancel);
    PS_TRY(after);
    row.baseline = *before;
    row.value = *after;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string formatHeadlineValue(const std::string& metric, double value) {
  if (isRatio(metric)) return printed("%.2f %%", value * 100);
  if (isBytes(metric)) return printed("%.2f MiB", value / (1 << 20));
  return printed("%.3f ms", value / 1e6);
}

std::string headlineTableMarkdown(const std::vector<HeadlineRow>& rows) {
  std::string out =
      "| system | headline metric | baseline | system | change |\n"
      "| --- | --- | ---: | ---: | ---: |\n";
  for (const HeadlineRow& r : rows) {
    // Ratios change by points; times and bytes by a share of the baseline.
    const std::string change =
        isRatio(r.metric) ? printed("%+.2f pts", (r.value - r.baseline) * 100)
        : r.baseline != 0 ? printed("%+.1f %%", (r.value / r.baseline - 1) * 100)
                          : std::string("-");
    out += "| `" + r.system + "` " + r.title + " | " + r.metric + " | " +
           formatHeadlineValue(r.metric, r.baseline) + " | " +
           formatHeadlineValue(r.metric, r.value) + " | " + change + " |\n";
  }
  return out;
}

}  // namespace ps::runtime
