#include "ui/teach/RevealText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "runtime/schedules/ClosedFormFill.h"
#include "trace/analysis/ConfigJson.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

std::string percent(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %%", ratio * 100.0);
  return text;
}

// "7.27 points under" / "over" / "spot on".
std::string gapOf(double guess, double measured, const char* unit) {
  const double gap = guess - measured;
  if (std::fabs(gap) < 0.005) return "spot on";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f %s %s", std::fabs(gap), unit, gap < 0 ? "under" : "over");
  return text;
}

std::string titleOf(const std::string& schedule) {
  if (schedule == "gpipe") return "GPipe";
  if (schedule == "1f1b") return "1F1B";
  if (schedule == "zb-h1") return "ZB-H1";
  return schedule;
}

}  // namespace

RevealFacts revealFacts(const trace::RunTrace& run, const trace::RunAnalysis& analysis,
                        int rank0Peak) {
  RevealFacts f;
  f.measured = analysis.bubble_ratio;
  f.rank0Peak = rank0Peak;
  const trace::RunInfo& info = run.info;
  if (!info.schedule || !info.num_microbatches || isImportedProfileFormat(info.source)) return f;
  const int replicas = std::max(1, trace::dataParallelOf(info));
  const int ranks = static_cast<int>(std::min<std::size_t>(
      run.ranks.size(), static_cast<std::size_t>(std::max(0, info.num_ranks))));
  f.schedule = *info.schedule;
  f.p = ranks / replicas;
  f.m = *info.num_microbatches / replicas;
  f.v = trace::chunksOf(info).value_or(1);
  return f;
}

std::vector<std::string> revealLines(const RevealFacts& facts, const RevealGuess& guess) {
  std::vector<std::string> lines;
  if (facts.measured) {
    std::string line = "Measured bubble: " + percent(*facts.measured) + " of the step idle";
    if (guess.bubblePercent)
      line += "; your guess " + percent(*guess.bubblePercent / 100.0) + ": " +
              gapOf(*guess.bubblePercent, *facts.measured * 100.0, "points");
    lines.push_back(line);
  } else {
    lines.push_back("This run has no complete step to measure a bubble on.");
  }
  if (!facts.schedule.empty()) {
    const std::string sizes = " at p = " + std::to_string(facts.p) +
                              ", m = " + std::to_string(facts.m) +
                              (facts.v > 1 ? ", v = " + std::to_string(facts.v) : "");
    if (const auto own = runtime::fillBubbleFormula(facts.schedule, facts.p, facts.m, facts.v)) {
      lines.push_back(titleOf(facts.schedule) + "'s paper" + sizes + ": " + own->formula + " = " +
                      runtime::filledBubbleText(*own) + ", " + own->meaning + ".");
      if (facts.measured)
        lines.push_back("Measured minus paper: " +
                        gapOf(*facts.measured * 100.0, own->value * 100.0, "points") +
                        (std::fabs(*facts.measured - own->value) < 0.0001
                             ? ""
                             : " (this run's times or links differ from the paper's)"));
    } else {
      lines.push_back(facts.schedule + " has no closed-form bubble here" + sizes + ".");
    }
    if (facts.schedule != "1f1b" && facts.schedule != "gpipe")
      if (const auto base = runtime::fillBubbleFormula("1f1b", facts.p, facts.m, 1))
        lines.push_back("For comparison, 1F1B's " + base->formula + " = " +
                        runtime::filledBubbleText(*base) + ".");
  }
  if (facts.rank0Peak >= 0) {
    std::string line = "Rank 0's peak in flight: " + std::to_string(facts.rank0Peak) +
                       " (forwards begun whose backward has not ended)";
    if (guess.rank0Peak) {
      const int gap = *guess.rank0Peak - facts.rank0Peak;
      line += "; your guess " + std::to_string(*guess.rank0Peak) + ": " +
              (gap == 0 ? std::string("spot on")
                        : std::to_string(std::abs(gap)) + (gap < 0 ? " under" : " over"));
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace ps::ui
