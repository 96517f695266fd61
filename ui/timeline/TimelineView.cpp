#include "ui/timeline/TimelineView.h"

#include <algorithm>
#include <numeric>

namespace ps::ui {

using trace::Lane;

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setObjectName("timelineView");
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(120);
  setAttribute(Qt::WA_OpaquePaintEvent);  // every pixel is painted: no erase first
}

QSize TimelineView::sizeHint() const {
  // Room for up to eight tracks; more scroll (a hint of 64 tracks would ask for 3000 px).
  int h = 0;
  for (int r = 0; r < std::min(8, layout_.ranks()); ++r)
    h += layout_.trackHeight(r);
  if (!run_) h = 4 * layout_.trackHeight(0);
  return {900, kAxis + std::max(h, 4 * (kCompute + 2 * kComm + kRowGap)) + 10};
}

void TimelineView::setRun(std::shared_ptr<const trace::RunTrace> run) {
  std::vector<trace::StepStats> steps;
  if (run) steps = trace::analyzeRun(*run).steps;
  setRun(std::move(run), std::move(steps));
}

void TimelineView::setRun(std::shared_ptr<const trace::RunTrace> run,
                          std::vector<trace::StepStats> steps) {
  run_ = std::move(run);
  selection_ = {};
  why_.reset();  // it explained the previous run
  causeIndex_ = IdleCauseIndex();
  steps_ = std::move(steps);
  numberText_.clear();  // labels of the last run ("3·1" on an interleaved one)
  indexes_.clear();
  depth_.clear();
  highlights_.clear();
  highlightCount_ = 0;
  filtering_ = false;
  dependencies_.clear();
  dependents_.clear();
  flows_.clear();
  flowsBuilt_ = false;
  band_ = {0, 0};
  history_.clear();
  offset_ = 0;
  const int ranks = run_ ? static_cast<int>(run_->ranks.size()) : 0;
  layout_.reset(ranks);
  chunks_ = run_ ? StageChunks(*run_) : StageChunks();
  if (run_) {
    indexes_.resize(run_->ranks.size());
    depth_.reserve(run_->ranks.size());
    for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
      for (int l = 0; l < trace::kLaneCount; ++l)
        indexes_[r][l] = trace::LaneIndex(run_->ranks[r].lanes[l]);
      depth_.emplace_back(run_->ranks[r], TrackLayout::kMaxDepthRows);
      layout_.setDepthRows(static_cast<int>(r), depth_.back().rows());
    }
  }
  auto [lo, hi] = run_ ? run_->timeExtent() : std::pair<std::int64_t, std::int64_t>{0, 1};
  if (hi <= lo) hi = trace::satAdd(lo, 1);
  if (hi <= lo) lo = hi - 1;  // a run that sits at INT64_MAX
  // Saturating: ops at the ends of the int64 range leave no room for a margin there.
  const std::int64_t margin = std::max<std::int64_t>(1, trace::satSub(hi, lo) / 50);
  limit_ = {trace::satSub(lo, margin), trace::satAdd(hi, margin)};
  range_ = limit_;
  geometryValid_ = false;
  if (flowsVisible_) setFlowsVisible(true);
  updateGeometry();
  update();
  emit rangeChanged(range_);
  emit zoomHistoryChanged();
  emit rangeBandChanged(band_);
  emit selectionChanged(selection_);
  emitScroll();
}

void TimelineView::growRun(std::shared_ptr<const trace::RunTrace> run,
                           std::vector<trace::StepStats> steps) {
  const bool whole = !run_ || (range_.start == limit_.start && range_.end == limit_.end);
  const TimeRange kept = range_;
  const int offset = offset_;
  setRun(std::move(run), std::move(steps));
  if (!whole) setVisibleRange(kept);
  setVerticalOffset(offset);
}

std::size_t TimelineView::indexBytes() const {
  std::size_t n = indexes_.capacity() * sizeof(indexes_[0]);
  for (const auto& lanes : indexes_)
    for (const auto& index : lanes)
      n += index.bytes() - sizeof(index);
  for (const auto& d : depth_)
    n += sizeof(d) + d.bytes();
  return n;
}

void TimelineView::setVisibleRange(TimeRange range) {
  if (range.end <= range.start) range = rangeFrom(range.start, 1);
  range_ = range;
  geometryValid_ = false;
  update();
  emit rangeChanged(range_);
}

void TimelineView::zoomTo(TimeRange range) {
  if (range.end <= range.start) return;
  history_.record(range_);
  setVisibleRange(range);
  emit zoomHistoryChanged();
}

void TimelineView::fit() {
  zoomTo(limit_);
}

void TimelineView::zoomBack() {
  if (!history_.canBack()) return;
  setVisibleRange(history_.back(range_));
  emit zoomHistoryChanged();
}

void TimelineView::zoomForward() {
  if (!history_.canForward()) return;
  setVisibleRange(history_.forward(range_));
  emit zoomHistoryChanged();
}

void TimelineView::setRangeBand(TimeRange band) {
  if (band.end < band.start) std::swap(band.start, band.end);
  band_ = band;
  update();
  emit rangeBandChanged(band_);
}

void TimelineView::zoomToBand() {
  if (!hasRangeBand()) return;
  const TimeRange target = band_;
  zoomTo(target);
}

void TimelineView::invalidateLayout() {
  offset_ = std::clamp(offset_, 0, maxVerticalOffset());
  geometryValid_ = false;
  update();
  emitScroll();
}

void TimelineView::setTrackCollapsed(int rank, bool collapsed) {
  layout_.setCollapsed(rank, collapsed);
  invalidateLayout();
}

void TimelineView::setTrackPinned(int rank, bool pinned) {
  layout_.setPinned(rank, pinned);
  invalidateLayout();
}

void TimelineView::setAllTracksCollapsed(bool collapsed) {
  for (int r = 0; r < layout_.ranks(); ++r)
    layout_.setCollapsed(r, collapsed);
  invalidateLayout();
}

int TimelineView::scrollPage() const {
  return std::max(0, height() - scrollTop());
}

int TimelineView::maxVerticalOffset() const {
  return layout_.maxOffset(height() - kAxis);
}

void TimelineView::setVerticalOffset(int offset) {
  offset = std::clamp(offset, 0, maxVerticalOffset());
  if (offset == offset_) return;
  offset_ = offset;
  geometryValid_ = false;
  update();
  emitScroll();
}

void TimelineView::emitScroll() {
  emit verticalScrollChanged(offset_, maxVerticalOffset(), scrollPage());
}

std::vector<int> TimelineView::visibleRanks() const {
  std::vector<int> out;
  for (const Track& t : placeTracks())
    if (t.clipBottom > t.clipTop) out.push_back(t.rank);
  return out;
}

void TimelineView::resizeEvent(QResizeEvent*) {
  geometryValid_ = false;
  const int clamped = std::clamp(offset_, 0, maxVerticalOffset());
  offset_ = clamped;
  emitScroll();
}

void TimelineView::select(const Selection& selection) {
  Selection s = selection;
  if (s.valid() && (!run_ || s.rank >= static_cast<int>(run_->ranks.size()) ||
                    s.index >= run_->ranks[s.rank].lane(s.lane).size()))
    s = {};
  const bool changed = !(s == selection_);
  selection_ = s;
  if (changed) computeDependencies();
  update();
  if (changed) emit selectionChanged(selection_);
}

void TimelineView::centerOn(const Selection& op) {
  if (!run_ || !op.valid() || op.rank >= static_cast<int>(run_->ranks.size())) return;
  const auto& lane = run_->ranks[op.rank].lane(op.lane);
  if (op.index >= lane.size()) return;
  const std::int64_t s = lane.start[op.index], e = lane.end[op.index];
  const std::int64_t length = range_.length(), duration = trace::satSub(e, s);
  if (duration > length / 10 * 9) {
    // Wider than the view: zoom out to it with a margin.
    const std::int64_t margin = std::max<std::int64_t>(1, duration / 10);
    zoomTo({trace::satSub(s, margin), trace::satAdd(e, margin)});
  } else if (s < range_.start || e > range_.end) {
    setVisibleRange(rangeFrom(trace::satSub(std::midpoint(s, e), length / 2), length));
  }
  setVerticalOffset(layout_.offsetShowing(op.rank, offset_, height() - kAxis));
  select(op);
}

void TimelineView::setHighlights(std::vector<Selection> matches) {
  highlights_.clear();
  highlightCount_ = 0;
  filtering_ = !matches.empty();
  if (run_)
    for (const Selection& m : matches) {
      if (!m.valid() || m.rank >= static_cast<int>(run_->ranks.size()) ||
          m.index >= run_->ranks[m.rank].lane(m.lane).size())
        continue;
      // Keyed by the lane the boxes are queried from: a depth row for nested ranges.
      const DepthRows& d = depth_[m.rank];
      const auto place = d.placeOf(m.lane, m.index);
      const bool inRows = d.nested() && (m.lane == Lane::Compute || m.lane == Lane::Other);
      const trace::OpColumns* cols =
          inRows ? &d.lane(place.row) : &run_->ranks[m.rank].lane(m.lane);
      highlights_[cols].push_back(inRows ? place.index : m.index);
      ++highlightCount_;
    }
  for (auto& [cols, list] : highlights_) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  update();
}

void TimelineView::setFlowsVisible(bool visible) {
  flowsVisible_ = visible;
  if (visible && run_ && !flowsBuilt_) {
    flows_ = matchFlows(*run_);
    longestFlow_ = 0;
    for (const Flow& f : flows_)
      longestFlow_ = std::max(longestFlow_, trace::satSub(f.end, f.start));
    flowsBuilt_ = true;
  }
  update();
}

}  // namespace ps::ui
