#include "trace/analysis/FigureCoverage.h"

#include <algorithm>

#include "trace/Units.h"

namespace ps::trace {
namespace {

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

FigureCoverage figureCoverage(const RunTrace& run, const RunAnalysis& analysis) {
  FigureCoverage c;
  for (const auto& rank : run.ranks) {
    c.computeOps += static_cast<std::int64_t>(rank.lane(Lane::Compute).size());
    c.otherOps += static_cast<std::int64_t>(rank.lane(Lane::Other).size());
    for (Lane l : {Lane::Send, Lane::Recv, Lane::Collective})
      c.transferOps += static_cast<std::int64_t>(rank.lane(l).size());
  }
  c.steps = static_cast<int>(analysis.steps.size());
  if (!analysis.steps.empty()) {
    std::int64_t first = analysis.steps.front().start_ns, last = analysis.steps.front().end_ns;
    for (const auto& s : analysis.steps) {
      first = std::min(first, s.start_ns);
      last = std::max(last, s.end_ns);
    }
    c.stepsSpanNs = last - first;
  }
  const auto [begin, end] = run.timeExtent();
  c.timelineSpanNs = end - begin;
  return c;
}

std::string coverageText(const FigureCoverage& c, const RunAnalysis& analysis) {
  if (c.computeOps + c.transferOps + c.otherOps == 0) return {};
  if (c.computeOps == 0)
    return "no compute ops (F B I W R OPT FILL) were recognised: step time and bubble are not "
           "measured; " +
           plural(c.otherOps, "OTHER op", "OTHER ops") + " and " +
           plural(c.transferOps, "transfer", "transfers") + " are drawn";
  std::string text = "figures cover " + plural(c.computeOps, "compute op", "compute ops") +
                     " (F B I W R OPT FILL) in " + plural(c.steps, "step", "steps") + ", " +
                     formatDuration(c.stepsSpanNs) + " of the " + formatDuration(c.timelineSpanNs) +
                     " timeline";
  if (c.otherOps > 0 || c.transferOps > 0) {
    text += "; ";
    if (c.otherOps > 0) text += plural(c.otherOps, "OTHER op", "OTHER ops");
    if (c.otherOps > 0 && c.transferOps > 0) text += " and ";
    if (c.transferOps > 0) text += plural(c.transferOps, "transfer", "transfers");
    text += c.otherOps + c.transferOps == 1 ? " is drawn but not counted as busy"
                                            : " are drawn but not counted as busy";
  }
  text += ".";
  if (analysis.bubble_ratio && analysis.steady_bubble_ratio)
    text +=
        "\nbubble: idle inside each step's span, mean over steps; steady bubble: idle over "
        "the window from each rank's step 1 to step N-1, gaps between steps included.";
  return text;
}

}  // namespace ps::trace
