#include "trace/analysis/StatsCsv.h"

#include <cstdio>

namespace ps::trace {
namespace {

std::string number(const std::optional<double>& v) {
  if (!v) return {};
  char text[40];
  std::snprintf(text, sizeof text, "%.10g", *v);
  return text;
}
std::string number(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}

}  // namespace

std::string statsCsv(const RunAnalysis& a) {
  std::string out =
      "scope,rank,busy_ns,bubble_ratio,peak_memory_bytes,step_time_ns,steady_bubble_ratio\n";
  std::optional<std::int64_t> peak;
  for (const auto& r : a.ranks) {
    out += "rank," + std::to_string(r.rank) + ',' + std::to_string(r.busy_ns) + ',' +
           number(r.bubble_ratio) + ',' + number(r.peak_memory_bytes) + ",,\n";
    if (r.peak_memory_bytes) peak = std::max(peak.value_or(0), *r.peak_memory_bytes);
  }
  out += "run,,," + number(a.bubble_ratio) + ',' + number(peak) + ',' + number(a.step_time_ns) +
         ',' + number(a.steady_bubble_ratio) + '\n';
  return out;
}

}  // namespace ps::trace
