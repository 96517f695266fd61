#include "trace/analysis/FigureCoverage.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "trace/Units.h"
#include "trace/analysis/ConfigJson.h"

namespace ps::trace {
namespace {

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Length of the union of [start, end) intervals in any order.
std::int64_t unionOf(std::vector<std::pair<std::int64_t, std::int64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0, from = 0, to = 0;
  bool open = false;
  for (const auto& [s, e] : spans) {
    if (open && s <= to) {
      to = std::max(to, e);
      continue;
    }
    if (open) total += to - from;
    from = s;
    to = std::max(s, e);
    open = true;
  }
  if (open) total += to - from;
  return total;
}

using Spans = std::vector<std::pair<std::int64_t, std::int64_t>>;

BusyCoverage coverageOf(const std::map<int, Spans>& compute, const std::map<int, Spans>& all) {
  BusyCoverage c;
  for (const auto& [rank, spans] : compute)
    c.computeBusyNs += unionOf(spans);
  for (const auto& [rank, spans] : all)
    c.busyNs += unionOf(spans);
  return c;
}

}  // namespace

std::optional<double> BusyCoverage::ratio() const {
  if (busyNs <= 0) return std::nullopt;
  return static_cast<double>(computeBusyNs) / static_cast<double>(busyNs);
}

bool BusyCoverage::low() const {
  const auto r = ratio();
  return r && *r < kLowComputeCoverage;
}

BusyCoverage busyCoverage(const std::vector<OpRecord>& ops) {
  std::map<int, Spans> compute, all;
  for (const auto& op : ops) {
    all[op.rank].emplace_back(op.start_ns, op.end_ns);
    if (isCompute(op.kind)) compute[op.rank].emplace_back(op.start_ns, op.end_ns);
  }
  return coverageOf(compute, all);
}

BusyCoverage busyCoverage(const RunTrace& run) {
  // Lanes are sorted by start (RunTrace.h): a merge walk over them, no copies, since the stats
  // pane asks for this on every run it shows.
  BusyCoverage c;
  for (const auto& rank : run.ranks) {
    c.computeBusyNs += unionLength(rank.lane(Lane::Compute).start, rank.lane(Lane::Compute).end);
    std::array<std::size_t, kLaneCount> next{};
    std::int64_t from = 0, to = 0;
    bool open = false;
    for (;;) {
      int pick = -1;
      for (int l = 0; l < kLaneCount; ++l) {
        const OpColumns& lane = rank.lanes[static_cast<std::size_t>(l)];
        const std::size_t i = next[static_cast<std::size_t>(l)];
        if (i < lane.start.size() &&
            (pick < 0 || lane.start[i] < rank.lanes[static_cast<std::size_t>(pick)]
                                             .start[next[static_cast<std::size_t>(pick)]]))
          pick = l;
      }
      if (pick < 0) break;
      const OpColumns& lane = rank.lanes[static_cast<std::size_t>(pick)];
      const std::size_t i = next[static_cast<std::size_t>(pick)]++;
      if (open && lane.start[i] <= to) {
        to = std::max(to, lane.end[i]);
        continue;
      }
      if (open) c.busyNs += to - from;
      from = lane.start[i];
      to = std::max(lane.start[i], lane.end[i]);
      open = true;
    }
    if (open) c.busyNs += to - from;
  }
  return c;
}

std::optional<BusyCoverage> importedBusyCoverage(const RunInfo& run) {
  const auto import = jsonTopLevelObject(run.config_json, "import");
  if (!import) return std::nullopt;
  const auto compute = jsonTopLevelInt(*import, "recognised_busy_ns");
  const auto busy = jsonTopLevelInt(*import, "raw_busy_ns");
  if (!compute || !busy || *compute < 0 || *busy < 0) return std::nullopt;
  return BusyCoverage{*compute, *busy};
}

std::string lowCoverageNote(const BusyCoverage& coverage) {
  if (!coverage.low()) return {};
  return "recognised compute covers " + formatPercent(*coverage.ratio()) +
         " of busy time: not a pipeline trace?";
}

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
  c.busy = busyCoverage(run);
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
  if (c.busy.low()) text += "\n" + lowCoverageNote(c.busy);
  if (analysis.bubble_ratio && analysis.steady_bubble_ratio)
    text +=
        "\nbubble: idle inside each step's span, mean over steps; steady bubble: idle over "
        "the window from each rank's step 1 to step N-1, gaps between steps included.";
  return text;
}

}  // namespace ps::trace
