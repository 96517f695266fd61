#pragma once
// A run as the window shows it: the loaded trace and its analysis, computed once when the run is
// selected and shared by every pane (timeline, memory, stats, links, compare), so selecting a
// run analyses it once, not once per pane.

#include <QString>

#include <memory>

#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::ui {

struct LoadedRun {
  QString file;  // the trace file it came from
  std::shared_ptr<const trace::RunTrace> trace;
  trace::RunAnalysis analysis;
  qint64 id() const { return trace->info.id; }
};

// Loads run `id` of `path` (read-only) and analyses it.
Result<std::shared_ptr<const LoadedRun>> loadAndAnalyse(const QString& path, qint64 id);

}  // namespace ps::ui
