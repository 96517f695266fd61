#include "ui/timeline/TimelineData.h"

#include <algorithm>

#include "ui/timeline/TrackLayout.h"

namespace ps::ui {

using trace::Lane;

TimelineData::TimelineData(std::shared_ptr<const trace::RunTrace> run,
                           std::vector<trace::StepStats> steps)
    : run_(std::move(run)), steps_(std::move(steps)) {
  chunks_ = run_ ? StageChunks(*run_) : StageChunks();
  if (run_) {
    indexes_.resize(run_->ranks.size());
    depth_.reserve(run_->ranks.size());
    for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
      for (int l = 0; l < trace::kLaneCount; ++l)
        indexes_[r][l] = trace::LaneIndex(run_->ranks[r].lanes[l]);
      depth_.emplace_back(run_->ranks[r], TrackLayout::kMaxDepthRows);
    }
  }
  auto [lo, hi] = run_ ? run_->timeExtent() : std::pair<std::int64_t, std::int64_t>{0, 1};
  if (hi <= lo) hi = trace::satAdd(lo, 1);
  if (hi <= lo) lo = hi - 1;  // a run that sits at INT64_MAX
  // Saturating: ops at the ends of the int64 range leave no room for a margin there.
  const std::int64_t margin = std::max<std::int64_t>(1, trace::satSub(hi, lo) / 50);
  limit_ = {trace::satSub(lo, margin), trace::satAdd(hi, margin)};
}

bool TimelineData::has(const TimelineOp& op) const {
  return run_ && op.valid() && op.rank < static_cast<int>(run_->ranks.size()) &&
         op.index < run_->ranks[op.rank].lane(op.lane).size();
}

std::size_t TimelineData::indexBytes() const {
  std::size_t n = indexes_.capacity() * sizeof(indexes_[0]);
  for (const auto& lanes : indexes_)
    for (const auto& index : lanes)
      n += index.bytes() - sizeof(index);
  for (const auto& d : depth_)
    n += sizeof(d) + d.bytes();
  return n;
}

void TimelineData::setHighlights(const std::vector<TimelineOp>& matches) {
  highlights_.clear();
  highlightCount_ = 0;
  filtering_ = !matches.empty();
  for (const TimelineOp& m : matches) {
    if (!has(m)) continue;
    // Keyed by the lane the boxes are queried from: a depth row for nested ranges.
    const DepthRows& d = depth_[m.rank];
    const auto place = d.placeOf(m.lane, m.index);
    const bool inRows = d.nested() && (m.lane == Lane::Compute || m.lane == Lane::Other);
    const trace::OpColumns* cols = inRows ? &d.lane(place.row) : &run_->ranks[m.rank].lane(m.lane);
    highlights_[cols].push_back(inRows ? place.index : m.index);
    ++highlightCount_;
  }
  for (auto& [cols, list] : highlights_) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
}

bool TimelineData::highlighted(const trace::OpColumns* cols, std::size_t first,
                               std::size_t count) const {
  const auto it = highlights_.find(cols);
  if (it == highlights_.end()) return false;
  const auto& list = it->second;
  const auto k = std::lower_bound(list.begin(), list.end(), first);
  return k != list.end() && *k < first + count;
}

const std::vector<Flow>& TimelineData::flows() {
  if (run_ && !flowsBuilt_) {
    flows_ = matchFlows(*run_);
    longestFlow_ = 0;
    for (const Flow& f : flows_)
      longestFlow_ = std::max(longestFlow_, trace::satSub(f.end, f.start));
    flowsBuilt_ = true;
  }
  return flows_;
}

void TimelineData::setExplanation(std::shared_ptr<const trace::RunExplanation> why) {
  why_ = std::move(why);
  causes_ = why_ ? IdleCauseIndex(why_->bubbles) : IdleCauseIndex();
}

}  // namespace ps::ui
