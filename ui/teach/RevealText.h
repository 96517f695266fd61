#pragma once
// Predict, then reveal (the Teach dock): what the run measured against the student's guess, and
// the paper's formula with the run's p, m and v put in (runtime/schedules/ClosedFormFill.h), e.g.
//   measured 27.27 % · your guess 20.00 %: 7.27 points under
//   1F1B's paper: (p-1)/(m+p-1) = (4-1)/(8+4-1) = 3/11 = 27.27 % (the paper's idle share ...)
// Plain strings (one line each) built from the run; the widget only lays them out.

#include <optional>
#include <string>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::ui {

struct RevealFacts {
  std::string schedule;  // empty: the run names none (or it is an imported profile)
  int p = 0, m = 0, v = 1;
  std::optional<double> measured;  // the run's bubble ratio (mean over steps and ranks)
  int rank0Peak = -1;              // rank 0's peak activations in flight; -1: no forwards
};

struct RevealGuess {
  std::optional<double> bubblePercent;
  std::optional<int> rank0Peak;
};

// The facts of `run` (p = the ranks it holds per pipeline replica, as the Stats panel counts).
RevealFacts revealFacts(const trace::RunTrace& run, const trace::RunAnalysis& analysis,
                        int rank0Peak);

// The reveal, one line each: measured and the gap to the guess, the paper's formula filled in
// and what it is for (or that the schedule has none, with 1F1B's at the same p and m beside it),
// rank 0's peak in flight and the gap to that guess.
std::vector<std::string> revealLines(const RevealFacts& facts, const RevealGuess& guess);

}  // namespace ps::ui
