#pragma once
// A schedule's paper bubble (ClosedForms.h) with the run's numbers put in, for a student to check
// by hand: "(p-1)/(m+p-1)" at p = 4, m = 8 reads "(4-1)/(8+4-1) = 3/11 = 27.27 %". The formula's
// terms are read as written (integers, p, m, v, +, -, · or a number before a letter for a
// product, one top-level "/"), so the text follows whatever the registry's formula says.

#include <optional>
#include <string>
#include <string_view>

namespace ps::runtime {

struct FilledBubble {
  std::string formula;                  // as the registry gives it, e.g. "(p-1)/(m+p-1)"
  std::string filled;                   // "(4-1)/(8+4-1)"
  long numerator = 0, denominator = 0;  // as filled in: 3 and 11 (ZB-H1: 3 and 27)
  long lowestNumerator = 0, lowestDenominator = 0;  // in lowest terms (ZB-H1: 1 and 9)
  double value = 0.0;
  // What the formula is for, one line: its assumptions.
  std::string meaning;
};

// nullopt where analyticBubble gives none (no closed form, sizes outside it).
std::optional<FilledBubble> fillBubbleFormula(std::string_view schedule, int p, int m, int v);

// "(4-1)/(8+4-1) = 3/11 = 27.27 %"; "(4-1)/(3·8+4-1) = 3/27 = 1/9 = 11.11 %".
std::string filledBubbleText(const FilledBubble& bubble);

}  // namespace ps::runtime
