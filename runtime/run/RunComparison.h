#pragma once
// Two runs side by side, as one table shared by `pipescope-cli compare` and the app's Compare
// pane: the headline numbers of each run with B − A and B / A, and the knobs in which the two
// runs' configs differ ("what differs").

#include <optional>
#include <string>
#include <vector>

#include "trace/TraceRecords.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {

// How a row's values read: the unit picks the formatting and how B − A is shown.
enum class CompareUnit {
  Duration,  // nanoseconds
  Ratio,     // 0..1, shown as %, its difference in percentage points
  Bytes,
  Rate,   // per second (a throughput metric)
  Plain,  // a metric without a known unit
};

// "ns", "ratio", "bytes", "per_s", "" (the JSON face of a unit).
const char* compareUnitName(CompareUnit unit);

struct CompareRow {
  std::string key;    // stable id for scripts: "step_time_ns", "metric.loss"...
  std::string label;  // what people read: "step time"
  CompareUnit unit = CompareUnit::Plain;
  std::optional<double> a, b;  // nullopt: the run has no such value

  // B − A, in the row's unit; nullopt when either value is missing.
  std::optional<double> diff() const;
  // B / A; nullopt when either value is missing or A is zero (no finite ratio).
  std::optional<double> ratio() const;
};

// One knob of the runs' configs whose value differs; nullopt when a run's config lacks it.
struct KnobDifference {
  std::string key;
  std::string label;
  std::optional<std::string> a, b;
};

struct RunComparison {
  trace::RunInfo runA, runB;
  // Where each run came from (a file path as the user gave it); empty when not from a file.
  std::string originA, originB;
  std::vector<CompareRow> rows;
  std::vector<KnobDifference> differences;  // in the knobs' fixed order (ConfigKnobs.h)
};

// Rows, in order: step time, bubble, steady bubble, throughput (when either run has a "*_per_s"
// metric, the first by name; it is then not repeated among the metrics), peak memory (max over
// ranks), mean busy per rank, bytes sent over links, then the last value of every metric of
// either run (by name). Differences compare configKnobs() of both runs' config_json.
RunComparison compareRuns(const trace::RunAnalysis& a, const trace::RunAnalysis& b);

// Cell texts, shared by the text table and the Qt model. Missing values read "-".
std::string formatCompareValue(const CompareRow& row, const std::optional<double>& value);
std::string formatCompareDiff(const CompareRow& row);   // "+39.400 ms", "-2.50 points", "0 ns"
std::string formatCompareRatio(const CompareRow& row);  // "7.912×"
// "run 3 "name"" plus " (origin)" when it has one.
std::string compareRunTitle(const trace::RunInfo& run, const std::string& origin);

// A fixed-width table for people; stable text (golden-tested).
std::string comparisonText(const RunComparison& c);
// One JSON object: a{}, b{} (id, name, source, schedule, status, origin), rows[] (key, label,
// unit, a, b, diff, ratio; ratio rows add diff_points), differences[] (key, label, a, b).
std::string comparisonJson(const RunComparison& c);

}  // namespace ps::runtime
