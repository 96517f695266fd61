#pragma once
// Why the step takes as long as it does, for `report`, the Stats panel and the timeline: the
// bubble attribution (per rank, for the run, and every idle part), the critical path of the
// longest step (as refs into the run, and resolved so that a report outlives the run), each
// rank's pipeline work and the transfer waits per link — and, from those, the lines that say
// why the measured bubble differs from the schedule's paper formula.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/OpKind.h"
#include "trace/RunTrace.h"
#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/OpSlack.h"
#include "trace/analysis/OrderDoctor.h"

namespace ps::trace {

struct PathOp {
  int rank = 0;
  OpKind kind = OpKind::F;
  std::int32_t stage = kNoValue, microbatch = kNoValue;
  std::int64_t start = 0, end = 0;
};

struct RunExplanation {
  BubbleAttribution bubbles;
  std::optional<CriticalPath> path;  // of the longest step, refs into the run
  struct Path {
    int step = 0;
    std::int64_t lengthNs = 0;
    std::vector<PathOp> ops;
  };
  std::optional<Path> criticalPath;      // the same, resolved
  std::vector<std::int64_t> rankWorkNs;  // Σ of each rank's F/B/I/W/R durations
  // Transfer waits per link (src, dst): the receiver's idle time while the data was in flight.
  std::map<std::pair<int, int>, std::int64_t> transferWaitByLink;
  // How much longer each compute op could take before its step ends later (OpSlack.h).
  OpSlackTable slack;
  // The order doctor's moves (OrderDoctor.h), with their ops' labels ("2W3").
  struct OrderFix {
    OrderMove move;
    std::string moveLabel, beforeLabel;
    bool resimulated = false;  // gainNs from the run's plan simulated with the move, not re-timed
  };
  std::vector<OrderFix> orderFixes;

  // Share of the run's idle time of one cause, in points of the mean step time (ns / (Σ span·R)).
  double points(IdleCause cause) const;
};

RunExplanation explainRun(const RunTrace& run);

// "2B3" style label of a path op (stage, kind, micro-batch), or the kind alone.
std::string pathOpLabel(const PathOp& op);

// Why the measured bubble differs from the paper's (its formula assumes F = t, B = 2t, equal
// stages, free links and no optimizer wait): one line per cause that adds points, e.g.
// "+9.10 pts imbalance: rank 3 has 1.30× the work of rank 0", "+8.40 pts transfer waits, most
// on 1 → 2", then the fill and drain's own difference. Empty when nothing differs by 0.01 pts.
std::vector<std::string> paperGapLines(const RunExplanation& why, double paperBubble,
                                       double measuredBubble);

}  // namespace ps::trace
