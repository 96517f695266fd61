#pragma once
// A run as the window shows it: the loaded trace and its analysis, computed once when the run is
// selected and shared by every pane (timeline, memory, stats, links, compare), so selecting a
// run analyses it once, not once per pane.

#include <QString>

#include <memory>

#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"

namespace ps::ui {

inline constexpr std::size_t kExplainMaxOps = 2'000'000;

struct LoadedRun {
  QString file;  // the trace file it came from
  std::shared_ptr<const trace::RunTrace> trace;
  trace::RunAnalysis analysis;
  // Why it is idle where it is: bubble causes per part, the critical path (refs into `trace`);
  // null for a run of more than kExplainMaxOps ops.
  std::shared_ptr<const trace::RunExplanation> why;
  qint64 id() const { return trace->info.id; }
};

// Loads run `id` of `path` (read-only), analyses and explains it.
Result<std::shared_ptr<const LoadedRun>> loadAndAnalyse(const QString& path, qint64 id);

}  // namespace ps::ui
