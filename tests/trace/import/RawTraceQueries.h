#pragma once
// Small queries over an imported rank, shared by the importer tests.

#include <algorithm>
#include <string>
#include <vector>

#include "trace/import/RawTrace.h"

namespace ps::trace::import::testing {

// The events of one source, by start time.
inline std::vector<RawEvent> eventsOf(const RawRankTrace& t, EventSource source) {
  std::vector<RawEvent> out;
  for (const RawEvent& e : t.events)
    if (e.source == source) out.push_back(e);
  std::sort(out.begin(), out.end(),
            [](const RawEvent& a, const RawEvent& b) { return a.start_ns < b.start_ns; });
  return out;
}

inline bool hasWarning(const RawRankTrace& t, const std::string& part) {
  for (const auto& w : t.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

inline std::string allWarnings(const RawRankTrace& t) {
  std::string out;
  for (const auto& w : t.warnings)
    out += w + "\n";
  return out;
}

}  // namespace ps::trace::import::testing
