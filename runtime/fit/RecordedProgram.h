#pragma once
// What a recorded or imported run ran, read back as a plan's programs (issue 31 §2, "Program"):
// per rank, the ordered (stage, kind, micro-batch) compute actions of one reference step, where
// each stage ran, and the sizes P, S, V, M. The first step of `fit`: schedule recognition, the
// cost fit and the schedule file all start from it.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"

namespace ps::runtime::fit {

struct RecordedProgram {
  int ranks = 0;         // P: ranks holding compute
  int stages = 0;        // S = P·V virtual stages
  int chunks = 1;        // V
  int microbatches = 0;  // M per step
  int referenceStep = 0;
  std::vector<int> steps;                     // the run's complete steps, ascending
  std::vector<int> fitSteps;                  // the steps costs are taken from (see fitStepsOf)
  std::vector<std::vector<Action>> programs;  // [rank]: F/B/I/W of the reference step, in order
  std::vector<int> rankOfStage;               // [stage]
  // Per step, the micro-batch ids as stored -> 0..M-1 (imports may number them across steps).
  std::vector<std::vector<int>> microbatchIds;  // [index in steps] sorted distinct stored ids
  int stepsLikeReference = 0;                   // complete steps whose order equals the reference
  bool splitBackward = false;                   // I and W recorded instead of B
  bool recompute = false;                       // R ops recorded
  bool hasOptimizer = false;                    // OPT ops recorded
  bool optimizerBarrier = true;                 // every OPT after every rank's last backward
  std::vector<std::string> notes;

  // 0..M-1 for a stored micro-batch id of step steps[stepIndex]; -1 when it is not one.
  int microbatchIndex(std::size_t stepIndex, int stored) const;
  std::size_t stepIndexOf(int step) const;  // steps.size() when not a complete step
};

// Errors name what is missing: a run without complete steps, compute ops without a stage or
// micro-batch (unrecognised labels), a stage on two ranks (replicated pipelines), S not a
// multiple of P, a step whose micro-batch count differs.
[[nodiscard]] Result<RecordedProgram> readRecordedProgram(const trace::RunTrace& run,
                                                          const std::vector<int>& completeSteps);

// The steps whose times the fit uses: all of them, or, with three or more, all but the first
// (its warm-up: allocation, autotuning, page faults).
std::vector<int> fitStepsOf(const std::vector<int>& completeSteps);

}  // namespace ps::runtime::fit
