#include "runtime/run/RunComparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "runtime/run/ConfigKnobs.h"
#include "trace/JsonWriter.h"
#include "trace/Units.h"

namespace ps::runtime {
using trace::formatBytes;
using trace::formatDuration;
using trace::formatPercent;
using trace::JsonWriter;
using trace::pathBaseName;
using trace::RunAnalysis;
using trace::RunInfo;
using trace::RunStatus;
using trace::runStatusName;

const char* compareUnitName(CompareUnit unit) {
  switch (unit) {
    case CompareUnit::Duration:
      return "ns";
    case CompareUnit::Ratio:
      return "ratio";
    case CompareUnit::Bytes:
      return "bytes";
    case CompareUnit::Rate:
      return "per_s";
    case CompareUnit::Plain:
      break;
  }
  return "";
}

std::optional<double> CompareRow::diff() const {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> CompareRow::ratio() const {
  if (!a || !b || *a == 0.0) return std::nullopt;
  return *b / *a;
}

namespace {

template <typename T>
std::optional<double> asDouble(const std::optional<T>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

std::optional<double> peakMemory(const RunAnalysis& r) {
  std::optional<double> peak;
  for (const auto& rank : r.ranks)
    if (rank.peak_memory_bytes)
      peak = std::max(peak.value_or(0.0), static_cast<double>(*rank.peak_memory_bytes));
  return peak;
}

std::optional<double> meanBusy(const RunAnalysis& r) {
  if (r.ranks.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& rank : r.ranks)
    sum += static_cast<double>(rank.busy_ns);
  return sum / static_cast<double>(r.ranks.size());
}

// Zero when the run has no links at all (a one-rank run sends nothing).
double linkBytes(const RunAnalysis& r) {
  double sum = 0;
  for (const auto& l : r.links)
    sum += static_cast<double>(l.bytes);
  return sum;
}

std::optional<double> metric(const RunAnalysis& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() ? std::nullopt : std::optional<double>(it->second);
}

bool isRateMetric(const std::string& name) {
  constexpr std::string_view suffix = "_per_s";
  return name.size() > suffix.size() &&
         std::string_view(name).substr(name.size() - suffix.size()) == suffix;
}

// The union of both runs' knobs in one order: A's order, each knob only B has placed after the
// knob B lists before it (both lists follow configKnobs' fixed order, so this keeps it).
std::vector<KnobDifference> knobDifferences(const std::string& jsonA, const std::string& jsonB) {
  const auto ka = configKnobs(jsonA);
  const auto kb = configKnobs(jsonB);
  std::vector<KnobDifference> all;
  for (const auto& k : ka)
    all.push_back({k.key, k.label, k.value, std::nullopt});
  std::size_t insertAt = 0;
  for (const auto& k : kb) {
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& d) { return d.key == k.key; });
    if (it != all.end()) {
      it->b = k.value;
      insertAt = static_cast<std::size_t>(it - all.begin()) + 1;
    } else {
      all.insert(all.begin() + static_cast<std::ptrdiff_t>(insertAt),
                 {k.key, k.label, std::nullopt, k.value});
      ++insertAt;
    }
  }
  std::erase_if(all, [](const KnobDifference& d) { return d.a == d.b; });
  return all;
}

std::string printf1(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

RunComparison compareRuns(const RunAnalysis& a, const RunAnalysis& b) {
  RunComparison c;
  c.runA = a.run;
  c.runB = b.run;
  auto& rows = c.rows;
  rows.push_back({"step_time_ns", "step time", CompareUnit::Duration, asDouble(a.step_time_ns),
                  asDouble(b.step_time_ns)});
  rows.push_back({"bubble_ratio", "bubble", CompareUnit::Ratio, a.bubble_ratio, b.bubble_ratio});
  rows.push_back({"steady_bubble_ratio", "steady bubble", CompareUnit::Ratio, a.steady_bubble_ratio,
                  b.steady_bubble_ratio});

  std::map<std::string, int> metricNames;  // sorted union of both runs' metric names
  for (const auto& [name, v] : a.metrics)
    metricNames[name] = 0;
  for (const auto& [name, v] : b.metrics)
    metricNames[name] = 0;
  std::optional<std::string> rateMetric;
  for (const auto& [name, unused] : metricNames)
    if (isRateMetric(name)) {
      rateMetric = name;
      break;
    }
  if (rateMetric)
    rows.push_back({"metric." + *rateMetric, "throughput (" + *rateMetric + ")", CompareUnit::Rate,
                    metric(a, *rateMetric), metric(b, *rateMetric)});

  rows.push_back({"peak_memory_bytes", "peak memory (max rank)", CompareUnit::Bytes, peakMemory(a),
                  peakMemory(b)});
  rows.push_back(
      {"mean_busy_ns", "mean busy per rank", CompareUnit::Duration, meanBusy(a), meanBusy(b)});
  rows.push_back(
      {"link_bytes", "bytes sent over links", CompareUnit::Bytes, linkBytes(a), linkBytes(b)});
  for (const auto& [name, unused] : metricNames)
    if (name != rateMetric)
      rows.push_back(
          {"metric." + name, name, CompareUnit::Plain, metric(a, name), metric(b, name)});

  c.differences = knobDifferences(a.run.config_json, b.run.config_json);
  return c;
}

std::string formatCompareValue(const CompareRow& row, const std::optional<double>& value) {
  if (!value) return "-";
  const double v = *value;
  switch (row.unit) {
    case CompareUnit::Duration:
      return formatDuration(std::llround(v));
    case CompareUnit::Ratio:
      return formatPercent(v);
    case CompareUnit::Bytes:
      return formatBytes(std::llround(v));
    case CompareUnit::Rate:
      return printf1("%.6g /s", v);
    case CompareUnit::Plain:
      break;
  }
  return printf1("%.6g", v);
}

std::string formatCompareDiff(const CompareRow& row) {
  const auto d = row.diff();
  if (!d) return "-";
  // A sign on every non-zero difference, so that "+" reads as "B is more".
  const std::string sign = *d > 0 ? "+" : "";
  switch (row.unit) {
    case CompareUnit::Duration:
      return std::llround(*d) == 0 ? "0 ns" : sign + formatDuration(std::llround(*d));
    case CompareUnit::Ratio:
      return printf1(std::fabs(*d) < 5e-5 ? "0.00 points" : "%+.2f points", *d * 100.0);
    case CompareUnit::Bytes:
      return std::llround(*d) == 0 ? "0 B" : sign + formatBytes(std::llround(*d));
    case CompareUnit::Rate:
      return *d == 0 ? "0 /s" : printf1("%+.6g /s", *d);
    case CompareUnit::Plain:
      break;
  }
  return *d == 0 ? "0" : printf1("%+.6g", *d);
}

std::string formatCompareRatio(const CompareRow& row) {
  const auto r = row.ratio();
  return r ? printf1("%.3f×", *r) : "-";
}

std::string compareRunTitle(const RunInfo& run, const std::string& origin) {
  std::string t = "run " + std::to_string(run.id) + " \"" + run.name + "\"";
  if (!origin.empty()) t += " (" + pathBaseName(origin) + ")";
  return t;
}

namespace {

std::string runLine(const char* which, const RunInfo& run, const std::string& origin) {
  std::string s = std::string(which) + "  " + compareRunTitle(run, origin) + "  source " +
                  run.source + "  schedule " + run.schedule.value_or("-");
  if (run.status != RunStatus::Complete) s += "  status " + std::string(runStatusName(run.status));
  return s + "\n";
}

}  // namespace

std::string comparisonText(const RunComparison& c) {
  // One grid for both sections so that the A and B columns line up all the way down.
  struct Cells {
    std::string label, a, b, diff, ratio;
  };
  std::vector<Cells> table;
  for (const auto& r : c.rows)
    table.push_back({r.label, formatCompareValue(r, r.a), formatCompareValue(r, r.b),
                     formatCompareDiff(r), formatCompareRatio(r)});
  std::vector<Cells> knobs;
  for (const auto& d : c.differences)
    knobs.push_back({d.label, d.a.value_or("-"), d.b.value_or("-"), "", ""});

  const Cells header{"", "A", "B", "B − A", "B / A"};
  std::size_t w[5] = {trace::textColumns("what differs"), 0, 0, 0, 0};
  for (const auto* list : {&table, &knobs})
    for (const auto& cells : *list) {
      w[0] = std::max(w[0], trace::textColumns(cells.label));
      w[1] = std::max(w[1], trace::textColumns(cells.a));
      w[2] = std::max(w[2], trace::textColumns(cells.b));
      w[3] = std::max(w[3], trace::textColumns(cells.diff));
      w[4] = std::max(w[4], trace::textColumns(cells.ratio));
    }
  for (std::size_t i = 1; i < 5; ++i)
    w[i] = std::max(w[i], trace::textColumns(i == 1   ? header.a
                                             : i == 2 ? header.b
                                             : i == 3 ? header.diff
                                                      : header.ratio));

  // Numbers right-aligned (digits line up), knob values left-aligned (they are words).
  auto numberLine = [&](const Cells& cells) {
    std::string s = trace::padRight(cells.label, w[0]) + "  " + trace::padLeft(cells.a, w[1]) +
                    "  " + trace::padLeft(cells.b, w[2]) + "  " + trace::padLeft(cells.diff, w[3]) +
                    "  " + trace::padLeft(cells.ratio, w[4]);
    return s + "\n";
  };
  std::string out = runLine("A", c.runA, c.originA) + runLine("B", c.runB, c.originB) + "\n";
  out += numberLine(header);
  for (const auto& cells : table)
    out += numberLine(cells);
  out += "\n";
  if (knobs.empty()) return out + "what differs: nothing in the runs' configs\n";
  out += trace::padRight("what differs", w[0]) + "  " + trace::padRight("A", w[1]) + "  B\n";
  for (const auto& cells : knobs)
    out += trace::padRight(cells.label, w[0]) + "  " + trace::padRight(cells.a, w[1]) + "  " +
           cells.b + "\n";
  return out;
}

namespace {
void runJson(JsonWriter& w, const RunInfo& run, const std::string& origin) {
  w.beginObject();
  w.key("id").value(run.id);
  w.key("name").value(run.name);
  w.key("source").value(run.source);
  w.key("schedule").value(run.schedule);
  w.key("status").value(runStatusName(run.status));
  if (origin.empty())
    w.key("origin").null();
  else
    w.key("origin").value(origin);
  w.endObject();
}
}  // namespace

std::string comparisonJson(const RunComparison& c) {
  JsonWriter w(true);
  w.beginObject();
  w.key("a");
  runJson(w, c.runA, c.originA);
  w.key("b");
  runJson(w, c.runB, c.originB);
  w.key("rows").beginArray();
  for (const auto& r : c.rows) {
    w.beginObject();
    w.key("key").value(r.key);
    w.key("label").value(r.label);
    w.key("unit").value(compareUnitName(r.unit));
    w.key("a").value(r.a);
    w.key("b").value(r.b);
    w.key("diff").value(r.diff());
    if (r.unit == CompareUnit::Ratio) {
      const auto d = r.diff();
      w.key("diff_points").value(d ? std::optional<double>(*d * 100.0) : std::nullopt);
    }
    w.key("ratio").value(r.ratio());
    w.endObject();
  }
  w.endArray();
  w.key("differences").beginArray();
  for (const auto& d : c.differences) {
    w.beginObject();
    w.key("key").value(d.key);
    w.key("label").value(d.label);
    w.key("a").value(d.a);
    w.key("b").value(d.b);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

}  // namespace ps::runtime
