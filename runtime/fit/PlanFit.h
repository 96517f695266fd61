#pragma once
// `pipescope-cli fit` and the app's Fit plan (issue 31 §2): a recorded or imported run becomes an
// ordinary plan (the preset format) that reproduces it — its program (a named schedule or the
// recorded order as a torch CSV), its costs (per stage and kind, links, memory) — and the
// fitted plan is replayed through the simulator to show how well it does.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/fit/CostFit.h"
#include "runtime/fit/MemoryFit.h"
#include "runtime/fit/RecordedProgram.h"
#include "runtime/fit/ScheduleMatch.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"

namespace ps::runtime::fit {

struct FitOptions {
  int layersPerStage = 1;   // each stage's cost spread evenly over this many layers
  double wgradShare = 0.5;  // W's part of a recorded B (a run without I/W records)
  bool fitLatency = true;   // fit the link latency to the measured step time (see FittedPlan)
  // Where the recorded order's torch CSV goes when no generator matches; empty: a file in the
  // temporary folder named after the run.
  std::string scheduleFile;
};

struct RankQuality {
  int rank = 0;
  double measuredBubble = 0;
  double predictedBubble = 0;
};

struct OpResidual {
  int rank = 0;
  trace::OpKind kind = trace::OpKind::F;
  int stage = 0;
  int microbatch = 0;
  int step = 0;                    // the run's step number
  std::int64_t measuredEndNs = 0;  // from its step's start
  std::int64_t predictedEndNs = 0;
};

struct FitQuality {
  std::int64_t measuredStepNs = 0;  // mean over the fit steps
  std::int64_t predictedStepNs = 0;
  double measuredBubble = 0;
  double predictedBubble = 0;
  std::vector<RankQuality> ranks;
  std::vector<OpResidual> worst;  // the 5 largest |predicted - measured| end times
  double stepError() const;       // (predicted - measured) / measured
};

struct FittedPlan {
  RecordedProgram program;
  ScheduleMatch match;
  CostFit costs;
  MemoryFit memory;
  PlanSpec spec;                 // the plan: `sim --preset`, `run --preset` take its preset form
  std::string scheduleCsv;       // the recorded order, written to spec.scheduleFile when unmatched
  double measuredLatencyNs = 0;  // the transfers' own fit
  // With FitOptions::fitLatency, the latency at which the replay's step time matches the run's:
  // waits the ops do not show (a thread's hand-off, cores shared by ranks, launch gaps).
  double fittedLatencyNs = 0;
  FitQuality quality;
  std::vector<std::string> notes;
};

// Errors: the run cannot be read as a plan (RecordedProgram.h), the fitted plan does not build,
// the schedule file cannot be written; "fit cancelled" once `cancel` is set.
[[nodiscard]] Result<FittedPlan> fitPlan(const trace::RunTrace& run, const FitOptions& options = {},
                                         const std::atomic<bool>* cancel = nullptr);

// The fitted plan as a preset file (DESIGN §8): name, title, reference (the run it came from),
// a teaching line, the plan with its costs embedded, the measured step time as the headline.
std::string fittedPresetJson(const FittedPlan& fit, const trace::RunTrace& run,
                             const std::string& source);

// What `fit` prints: the program, the costs, the link and memory fits, the replay's quality.
std::string fitReportText(const FittedPlan& fit);
// The same as one JSON object (`fit --json`): schedule, P/M/V, link, costs, replay quality, notes.
std::string fitReportJson(const FittedPlan& fit);

}  // namespace ps::runtime::fit
