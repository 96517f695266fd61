// The timeline's geometry, rebuilt once per (range, size, track layout): axis ticks, the tracks
// on screen, per row the boxes of a per-pixel lane query, the background cut around the compute
// rows' boxes and the plain strips between compute bands (DESIGN §7.3-7.4).

#include <QElapsedTimer>

#include <algorithm>

#include "ui/timeline/TimelineView.h"

namespace ps::ui {

using trace::Lane;

std::vector<Track> TimelineView::placeTracks() const {
  return layout_.place(kAxis, height(), offset_);
}

const Track* TimelineView::trackAt(int y) const {
  for (const Track& t : tracks_)
    if (y >= t.clipTop && y < t.clipBottom) return &t;
  return nullptr;
}

const Track* TimelineView::trackOf(int rank) const {
  for (const Track& t : tracks_)
    if (t.rank == rank) return &t;
  return nullptr;
}

void TimelineView::rebuildGeometry() {
  QElapsedTimer timer;
  timer.start();
  boxes_.clear();
  ground_.clear();
  plainStrips_.clear();
  ticks_.clear();
  gridX_.clear();
  tracks_.clear();
  geometryValid_ = true;
  ++generation_;
  if (!run_) return;
  const double w = plotWidth();
  tickStep_ = tickStep(range_, w, 90);
  std::int64_t t = (range_.start / tickStep_) * tickStep_;
  // Near INT64_MAX the next multiple of the step may not exist: then no tick in view.
  const bool none = t < range_.start && __builtin_add_overflow(t, tickStep_, &t);
  // The last tick may sit within a step of INT64_MAX: stop rather than step past it.
  for (; !none && t <= range_.end; t = trace::satAdd(t, tickStep_)) {
    ticks_.push_back(t);
    gridX_.push_back(kGutter + static_cast<int>(timeToPx(range_, w, t)));
    if (t > trace::kTimeMax - tickStep_) break;
  }
  // Bubbles: each step's span is shaded behind the compute rows; what shows between the ops
  // is idle time inside the step. Steps are the same on every rank: one set of spans.
  std::vector<Span> shaded;
  for (const auto& s : steps_) {
    const int x0 = kGutter + static_cast<int>(std::max(-1.0, timeToPx(range_, w, s.start_ns)));
    const int x1 = kGutter + static_cast<int>(std::min(w + 1, timeToPx(range_, w, s.end_ns)));
    shaded.push_back({std::max(x0, kGutter), x1});
  }
  shaded = mergeSpans(std::move(shaded));
  tracks_ = placeTracks();
  // The plain strips are what the compute bands leave of the plot below the axis.
  std::vector<Span> bands;
  for (const Track& track : tracks_) {
    addTrack(track, shaded);
    const int a = std::max(track.computeTop, track.clipTop);
    const int b = std::min(track.computeBottom(), track.clipBottom);
    if (b > a) bands.push_back({a, b});
  }
  std::sort(bands.begin(), bands.end(),
            [](const Span& x, const Span& y) { return x.left < y.left; });
  int y = kAxis;
  for (const Span& band : bands) {
    if (band.left > y) plainStrips_.push_back(QRect(kGutter, y, width() - kGutter, band.left - y));
    y = std::max(y, band.right);
  }
  if (y < height()) plainStrips_.push_back(QRect(kGutter, y, width() - kGutter, height() - y));
  drawnItems_ = boxes_.size();
  lastGeometryMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

// One track: its compute rows (one per nesting depth, or the compute and other lanes together),
// each with the background cut around its boxes, then the send/recv rows.
void TimelineView::addTrack(const Track& track, const std::vector<Span>& shaded) {
  const int r = track.rank;
  const auto& rank = run_->ranks[r];
  const auto& index = indexes_[r];
  const DepthRows& depth = depth_[r];
  std::vector<Span> covered;
  std::vector<GroundPiece> pieces;
  const auto ground = [&](int y, int h) {
    const int top = std::max(y, track.clipTop), bottom = std::min(y + h, track.clipBottom);
    if (bottom <= top) return;
    pieces.clear();
    composeStrip(kGutter, width(), covered, shaded, gridX_, pieces);
    for (const auto& piece : pieces)
      ground_.push_back(
          {QRect(piece.span.left, top, piece.span.right - piece.span.left, bottom - top),
           piece.ground});
  };
  if (depth.nested() && !track.collapsed) {
    for (int row = 0; row < depth.rows(); ++row) {
      const int y = track.computeTop + row * track.rowHeight;
      covered.clear();
      addRow(track, y, track.rowHeight, Lane::Compute, depth.lane(row), depth.index(row), row,
             &covered);
      ground(y, track.rowHeight);
    }
  } else {
    const int y = track.computeTop, h = track.computeHeight;
    addRow(track, y, h, Lane::Compute, rank.lane(Lane::Compute),
           index[static_cast<int>(Lane::Compute)], -1, &covered);
    addRow(track, y, h, Lane::Other, rank.lane(Lane::Other), index[static_cast<int>(Lane::Other)],
           -1, &covered);
    ground(y, h);
  }
  if (track.collapsed) return;
  for (const auto& [lane, y] :
       {std::pair{Lane::Collective, track.commTop}, std::pair{Lane::Send, track.commTop},
        std::pair{Lane::Recv, track.commTop + kComm}})
    addRow(track, y, kComm, lane, rank.lane(lane), index[static_cast<int>(lane)], -1, nullptr);
}

// The boxes of one lane in one row; their drawn spans are merged into `covered` (kept sorted).
void TimelineView::addRow(const Track& track, int y, int h, Lane lane, const trace::OpColumns& cols,
                          const trace::LaneIndex& index, int depthRow, std::vector<Span>* covered) {
  if (y + h <= track.clipTop || y >= track.clipBottom || cols.empty()) return;
  const double w = plotWidth();
  const QRect clip(kGutter, track.clipTop, width() - kGutter, track.clipBottom - track.clipTop);
  const bool decorate = chunks_.marksChunks() || chunks_.marksDirections();
  const std::size_t firstBox = boxes_.size();
  for (const auto& item : trace::queryLane(cols, index, range_.start, range_.end, w, 2.0)) {
    const double x0 = std::max(-1.0, timeToPx(range_, w, item.start));
    const double x1 = std::min(w + 1, timeToPx(range_, w, item.end));
    const int left = kGutter + static_cast<int>(x0);
    const int right = kGutter + std::max(static_cast<int>(x0) + 1, static_cast<int>(x1));
    const QRect rect(left, y, right - left, h);
    // A one-pixel seam between neighbours keeps back-to-back ops of one kind apart.
    const QRect drawn = (rect.width() > 3 ? rect.adjusted(0, 0, -1, 0) : rect).intersected(clip);
    Box b{rect,       drawn, item.kind, 0,          0,          false,
          track.rank, lane,  &cols,     item.first, item.count, item.first};
    if (depthRow >= 0) {
      const auto source = depth_[track.rank].source(depthRow, item.first);
      b.lane = source.lane;
      b.op = source.index;
    }
    if (decorate && cols.stage[item.first] >= 0) {
      const auto info = chunks_.at(track.rank, cols.stage[item.first]);
      b.chunk = static_cast<std::uint8_t>(std::min(info.chunk, 255));
      b.replica = static_cast<std::uint8_t>(std::min(info.replica, 255));
    }
    b.labelled = !track.collapsed && (b.lane == Lane::Compute || b.lane == Lane::Other);
    boxes_.push_back(b);
  }
  if (!covered) return;
  const std::size_t mid = covered->size();
  for (std::size_t k = firstBox; k < boxes_.size(); ++k)
    if (!boxes_[k].drawn.isEmpty())
      covered->push_back({boxes_[k].drawn.left(), boxes_[k].drawn.right() + 1});
  std::inplace_merge(covered->begin(), covered->begin() + static_cast<std::ptrdiff_t>(mid),
                     covered->end(), [](const Span& a, const Span& b) { return a.left < b.left; });
}

}  // namespace ps::ui
