#pragma once
// Who is slow, step by step (`report --steps`, the app's Steps view, and the one line of a plain
// `report`). For each step and each rank present:
//   finish    the end of the rank's last pipeline op (F B I W R) in the step; the rank that
//             finished last, and by how much (its finish less the next latest), is the step's
//             straggler;
//   culprit   its own pipeline compute in the step was slow: its pace (the median over its ops
//             in the step of duration / expected duration) is at least (1 + kCulpritMargin) ×
//             its peers' (the median pace of the other ranks in the step; 1 with none). An op's
//             expected duration is the smaller of two medians: its stage's for that kind (over
//             every step and every rank that holds the stage), and the run's for that kind per
//             layer times the stage's layers (the stages table's layer range; 1 when the run has
//             none). The first catches a rank that is slow now and then, the second one that is
//             always slow (with one rank per stage, the stage's median is that rank's own). A
//             median of ops and a comparison with the same step's peers, not sums against the
//             run: one op stalled by the host, or a step where every rank is slowed alike (a busy
//             machine), is no straggler; on a cpu run sharing 2 cores this keeps ranks that are
//             not slowed under 5 % of steps where sums against medians called them culprits in
//             half. A stage built to do more per layer than the others (a head, a loss) may
//             count as slow: it is what the others wait for. Ops without a stage are pooled per
//             rank;
//   victim    not a culprit, but idle in the step (warm-up, dependency, imbalance or transfer
//             parts of the bubble attribution) waiting on a chain of ops that went through a
//             culprit of the step: the op that ended the gap was held, through its latest input
//             or the rank's previous op, by a culprit's op.
// Ranks that are culprits in kFlagShare or more of the steps are flagged: `report` names them.
// Built from the run's StepGraph and its bubble attribution; O(ops log ops).

#include <cstdint>
#include <vector>

#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {

// 10 %: a pipeline rank's per-step compute varies by a few per cent from noise on a busy host
// (cpu runs on shared cores), and a straggler worth naming costs the step more than that.
inline constexpr double kCulpritMargin = 0.10;
inline constexpr double kFlagShare = 0.30;

struct RankStepVerdict {
  int rank = 0;
  bool culprit = false;
  bool victim = false;
  double pace = 0.0;          // median of duration / expected over its ops (0: no pipeline op)
  double slowness = 0.0;      // pace / its peers' pace
  std::int64_t excessNs = 0;  // when a culprit: Σ durations × (1 − 1/slowness), the time its
                              // work took beyond what it would have at its peers' pace
  std::int64_t waitedNs = 0;  // when a victim: its idle time held by a culprit
  std::int64_t finishNs = 0;  // end of its last pipeline op in the step
  bool hasWork = false;       // ran a pipeline op in the step
};

struct StepStragglers {
  int step = 0;
  int lastRank = -1;                   // the rank that finished last (-1: no pipeline op)
  std::int64_t lastByNs = 0;           // its finish less the next latest (0 with one rank)
  std::vector<RankStepVerdict> ranks;  // the ranks present, ascending
  std::vector<int> culprits() const;
};

struct StragglerRow {
  int rank = 0;
  int steps = 0;  // steps in which it ran pipeline work
  int finishedLast = 0;
  std::int64_t lastBySumNs = 0;  // Σ lastByNs over the steps it finished last
  int lastAsCulprit = 0, lastAsVictim = 0;
  int culpritSteps = 0;
  std::int64_t excessSumNs = 0;  // Σ excessNs over its culprit steps
  double slownessSum = 0.0;      // Σ slowness over its culprit steps
  int victimSteps = 0;
  std::int64_t waitedSumNs = 0;  // Σ waitedNs over its victim steps
  bool flagged = false;          // culprit in ≥ kFlagShare of the table's steps
  double culpritShare(int totalSteps) const;
  double victimShare(int totalSteps) const;
};

struct StragglerTable {
  double margin = kCulpritMargin;
  std::vector<StepStragglers> steps;  // one per step asked for, in that order
  std::vector<StragglerRow> ranks;    // the ranks present, ascending
  std::vector<int> flaggedRanks() const;
};

// `bubbles` from the same run (explainRun(run).bubbles or attributeBubbles(graph)); `steps`: the
// step numbers to judge (RunAnalysis's complete steps); a step the graph does not know is skipped.
StragglerTable findStragglers(const StepGraph& graph, const BubbleAttribution& bubbles,
                              const std::vector<int>& steps, double margin = kCulpritMargin);

}  // namespace ps::trace
