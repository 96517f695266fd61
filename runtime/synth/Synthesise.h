#pragma once
// Schedule synthesis under a memory cap (issue 36 §1; `pipescope-cli synth`, Explore's
// Synthesise). Each rank's order of F / I / W (or F / B) is searched so that the simulated step
// is as short as the caps allow:
//   1. a list scheduler (ListSynth.h) runs from a few priority rules (backward first, 1F1B's
//      memory-lean order, forwards first, oldest micro-batch first, breadth-first forwards) and
//      from the order of every generator that fits the caps, each as priority keys;
//   2. the best is improved by local search over the keys: a few swaps of two nearby ops of one
//      rank, kept when the step does not grow (equal moves cross plateaus);
//   3. the result is a plan of its own (schedule "synth"), validated and simulated under the
//      caps by the simulator every run goes through.
// Deterministic for a seed: the pass budget stops the search, the time limit only caps it (a
// search stopped by the clock says so). No solver package: an ILP or CP model of a few thousand
// ops with memory over time is too slow to hand to a user live, and none is packaged in Debian
// with a C++ API we could rely on (OR-tools is not).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "runtime/synth/SynthBaselines.h"
#include "runtime/synth/SynthProblem.h"
#include "trace/Result.h"

namespace ps::runtime::synth {

struct SynthOptions {
  double timeLimitS = 10;  // the search stops here whatever the budget says
  std::uint64_t seed = 1;
  int maxPasses = 20000;  // schedules tried at most (half over keys, half over orders)
  int patience = 4000;    // passes without a shorter step before a search stops
};

struct SynthResult {
  std::shared_ptr<const BuiltPlan> built;  // the synthesised plan (schedule "synth")
  std::int64_t stepNs = 0;                 // simulated
  std::vector<std::int64_t> peakPerRank;   // simulated
  std::vector<std::int64_t> capPerRank;    // INT64_MAX: none
  std::string startedFrom;                 // the rule or generator order the best one descends from
  int passes = 0;                          // list-schedule passes run
  double seconds = 0;                      // the search's wall time
  bool stoppedByClock = false;
  std::vector<SynthBaseline> baselines;
};

// Searches, then simulates the result. Errors: a knob synth does not take, caps that no order
// fits (naming the rank and what it needs at least), a cancel ("synth cancelled").
[[nodiscard]] Result<SynthResult> synthesise(const SynthRequest& request,
                                             const SynthOptions& options = {},
                                             const std::atomic<bool>* cancel = nullptr);

// The least a rank needs under any order: its static bytes and one micro-batch's activations of
// its largest stage. A cap below it on any rank makes synthesis impossible; the message says so.
Status checkCapsCanFit(const SynthProblem& problem);

}  // namespace ps::runtime::synth
