#pragma once
// The run as the timeline shows it, prepared once per run and shared by the scene (geometry), its
// overlays and the view: per rank the lanes' indexes and the nested ranges' depth rows, the steps,
// the stage chunks and the time extent with a margin; and what is marked on it beyond the ops:
// search highlights, send → receive flows (matched on first use), the idle causes of an
// explanation and, when compared, how far each op moved against the other run. No widget.

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/LaneIndex.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"
#include "ui/timeline/DepthRows.h"
#include "ui/timeline/FlowMatcher.h"
#include "ui/timeline/IdleCauses.h"
#include "ui/timeline/StageChunks.h"
#include "ui/timeline/TimeMapping.h"

namespace ps::ui {

// One op of the run: its rank, its lane and its index in that rank's lane.
struct TimelineOp {
  int rank = -1;
  trace::Lane lane = trace::Lane::Compute;
  std::size_t index = 0;
  bool valid() const { return rank >= 0; }
  bool operator==(const TimelineOp&) const = default;
};

class TimelineData {
 public:
  TimelineData() = default;  // no run
  TimelineData(std::shared_ptr<const trace::RunTrace> run, std::vector<trace::StepStats> steps);

  const trace::RunTrace* run() const { return run_.get(); }
  const std::shared_ptr<const trace::RunTrace>& sharedRun() const { return run_; }
  // Whether `op` names an op of the run.
  bool has(const TimelineOp& op) const;
  const std::vector<trace::StepStats>& steps() const { return steps_; }
  const StageChunks& chunks() const { return chunks_; }
  const DepthRows& depth(int rank) const { return depth_[rank]; }
  const trace::LaneIndex& index(int rank, trace::Lane lane) const {
    return indexes_[rank][static_cast<int>(lane)];
  }
  // The run's time extent with a 2 % margin each side (the range "fit" shows).
  TimeRange limit() const { return limit_; }
  // Bytes held by the lane indexes and depth rows.
  std::size_t indexBytes() const;

  // Search results: every other op is dimmed while a search is on (even one matching nothing).
  void setHighlights(const std::vector<TimelineOp>& matches);
  bool filtering() const { return filtering_; }
  std::size_t highlightCount() const { return highlightCount_; }
  // Whether a match lies among `count` ops of `cols` (a lane or a depth row) from `first`.
  bool highlighted(const trace::OpColumns* cols, std::size_t first, std::size_t count) const;

  // Send → receive pairs sorted by start, matched on the first call; the longest one's length.
  const std::vector<Flow>& flows();
  std::int64_t longestFlow() const { return longestFlow_; }

  void setExplanation(std::shared_ptr<const trace::RunExplanation> why);
  const std::shared_ptr<const trace::RunExplanation>& explanation() const { return why_; }
  const IdleCauseIndex& causes() const { return causes_; }

  // Compare: each op's Δstart against run A (per rank, per compute op; trace::OpDiff::kUnmatched
  // for none); null when not compared.
  using OpMoves = std::vector<std::vector<std::int64_t>>;
  void setOpMoves(std::shared_ptr<const OpMoves> moves) { moves_ = std::move(moves); }
  const OpMoves* opMoves() const { return moves_.get(); }

 private:
  std::shared_ptr<const trace::RunTrace> run_;
  std::vector<std::array<trace::LaneIndex, trace::kLaneCount>> indexes_;
  std::vector<DepthRows> depth_;
  std::vector<trace::StepStats> steps_;
  StageChunks chunks_;
  TimeRange limit_{0, 1};
  // Per queried lane (a rank's lane or a depth row), the sorted indexes of the matches there.
  std::unordered_map<const trace::OpColumns*, std::vector<std::size_t>> highlights_;
  std::size_t highlightCount_ = 0;
  bool filtering_ = false;
  std::shared_ptr<const OpMoves> moves_;
  bool flowsBuilt_ = false;
  std::vector<Flow> flows_;
  std::int64_t longestFlow_ = 0;
  std::shared_ptr<const trace::RunExplanation> why_;
  IdleCauseIndex causes_;
};

}  // namespace ps::ui
