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
  // True while `why` is being worked out in the background (a run shown from memory: its picture
  // comes first, the explanation some 100 ms later for a million ops).
  bool explaining = false;
  qint64 id() const { return trace->info.id; }
};

// Loads run `id` of `path` (read-only), analyses and explains it.
Result<std::shared_ptr<const LoadedRun>> loadAndAnalyse(const QString& path, qint64 id);
// Whether analyseInMemory explains the run itself or leaves it to the caller (explaining = true).
enum class Explain { Now, Later };
// Analyses and explains a run already in memory (a simulated run not yet saved to `file`).
std::shared_ptr<const LoadedRun> analyseInMemory(const QString& file,
                                                 std::shared_ptr<trace::RunTrace> run,
                                                 Explain explain = Explain::Now);
// The explanation of a run, or null above kExplainMaxOps ops.
std::shared_ptr<const trace::RunExplanation> explainLoaded(const trace::RunTrace& run);
// `run` with its explanation in place (a copy: what the panes hold stays as it was). GUI thread.
std::shared_ptr<const LoadedRun> withExplanation(const LoadedRun& run,
                                                 std::shared_ptr<const trace::RunExplanation> why);
// An unsaved run's id becomes the file's once its save has begun (RunController::saveBegan). GUI
// thread only: the worker that built the run no longer touches it once it was handed over.
void adoptRunId(const LoadedRun& run, qint64 id);

}  // namespace ps::ui
