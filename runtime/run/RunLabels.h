#pragma once
// What the run history shows: names that tell runs apart, and a run's whole config for a tooltip.

#include <string>
#include <vector>

#include "trace/TraceRecords.h"

namespace ps::runtime {

// One label per run for a run history, in the order of `runs`: its name (a file path in it, as
// older imports were named, shortened to its base name), plus, among runs sharing that name, the
// knobs in which they differ (" · layers 16 · link 10 Gb/s", at most kMaxLabelKnobs of them);
// runs still alike after that (same config, or differing in more knobs) end in " · #<id>".
// A unique name is left as it is.
std::vector<std::string> historyLabels(const std::vector<trace::RunInfo>& runs);
inline constexpr int kMaxLabelKnobs = 4;

// The whole config of a run, one "label: value" line per knob (configKnobs), then its source,
// status and, when it has one, status message; lines joined by '\n'.
std::string configSummary(const trace::RunInfo& run);

// A name with every path in it (a word holding '/' or '\\') cut to its base name:
// "nsys import: /data/run7/rank0.sqlite" -> "nsys import: rank0.sqlite".
std::string shortRunName(const std::string& name);

}  // namespace ps::runtime
