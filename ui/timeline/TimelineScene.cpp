#include "ui/timeline/TimelineScene.h"

#include <algorithm>

#include "trace/analysis/LaneQuery.h"

namespace ps::ui {

using trace::Lane;

namespace {

// `spans` less `holes` (both sorted, each without overlaps of its own).
std::vector<Span> withoutSpans(const std::vector<Span>& spans, const std::vector<Span>& holes) {
  std::vector<Span> out;
  std::size_t h = 0;
  for (Span s : spans) {
    while (h < holes.size() && holes[h].right <= s.left)
      ++h;
    for (std::size_t k = h; k < holes.size() && holes[k].left < s.right; ++k) {
      if (holes[k].left > s.left) out.push_back({s.left, holes[k].left});
      s.left = std::max(s.left, holes[k].right);
    }
    if (s.right > s.left) out.push_back(s);
  }
  return out;
}

}  // namespace

std::vector<Track> TimelineScene::placeTracks(const TrackLayout& layout, const SceneFrame& frame) {
  return layout.place(kAxis, frame.height, frame.offset);
}

void TimelineScene::build(const TimelineData& data, const TrackLayout& layout,
                          const SceneFrame& frame) {
  frame_ = frame;
  boxes_.clear();
  ground_.clear();
  plainStrips_.clear();
  ticks_.clear();
  gridX_.clear();
  tracks_.clear();
  ++generation_;
  if (!data.run()) return;
  addTicks();
  // Bubbles: each step's span is shaded behind the compute rows; what shows between the ops
  // is idle time inside the step. Steps are the same on every rank: one set of spans.
  const TimeRange& range = frame_.range;
  const double w = plotWidth();
  std::vector<Span> shaded;
  for (const auto& s : data.steps()) {
    if (s.start_ns > frame_.revealUntil) continue;
    const std::int64_t end = std::min(s.end_ns, frame_.revealUntil);
    const int x0 = kGutter + static_cast<int>(std::max(-1.0, timeToPx(range, w, s.start_ns)));
    const int x1 = kGutter + static_cast<int>(std::min(w + 1, timeToPx(range, w, end)));
    shaded.push_back({std::max(x0, kGutter), x1});
  }
  shaded = mergeSpans(std::move(shaded));
  tracks_ = placeTracks(layout, frame_);
  for (const Track& track : tracks_)
    addTrack(data, track, shaded);
  addPlainStrips();
}

void TimelineScene::addTicks() {
  const TimeRange& range = frame_.range;
  const double w = plotWidth();
  tickStep_ = ps::ui::tickStep(range, w, 90);
  std::int64_t t = (range.start / tickStep_) * tickStep_;
  // Near INT64_MAX the next multiple of the step may not exist: then no tick in view.
  const bool none = t < range.start && __builtin_add_overflow(t, tickStep_, &t);
  // The last tick may sit within a step of INT64_MAX: stop rather than step past it.
  for (; !none && t <= range.end; t = trace::satAdd(t, tickStep_)) {
    const int x = kGutter + static_cast<int>(timeToPx(range, w, t));
    ticks_.push_back({t, x});
    gridX_.push_back(x);
    if (t > trace::kTimeMax - tickStep_) break;
  }
}

// The plain strips are what the compute bands leave of the plot below the axis.
void TimelineScene::addPlainStrips() {
  std::vector<Span> bands;
  for (const Track& track : tracks_) {
    const int a = std::max(track.computeTop, track.clipTop);
    const int b = std::min(track.computeBottom(), track.clipBottom);
    if (b > a) bands.push_back({a, b});
  }
  std::sort(bands.begin(), bands.end(),
            [](const Span& x, const Span& y) { return x.left < y.left; });
  const int width = frame_.width - kGutter;
  int y = kAxis;
  for (const Span& band : bands) {
    if (band.left > y) plainStrips_.push_back(QRect(kGutter, y, width, band.left - y));
    y = std::max(y, band.right);
  }
  if (y < frame_.height) plainStrips_.push_back(QRect(kGutter, y, width, frame_.height - y));
}

// One track: its compute rows (one per nesting depth, or the compute and other lanes together),
// each with the background cut around its boxes, then the send/recv rows.
void TimelineScene::addTrack(const TimelineData& data, const Track& track,
                             const std::vector<Span>& shaded) {
  const int r = track.rank;
  const auto& rank = data.run()->ranks[r];
  const DepthRows& depth = data.depth(r);
  std::vector<Span> covered;
  std::vector<GroundPiece> pieces;
  const auto ground = [&](int y, int h, const std::vector<Span>& idle) {
    const int top = std::max(y, track.clipTop), bottom = std::min(y + h, track.clipBottom);
    if (bottom <= top) return;
    pieces.clear();
    composeStrip(kGutter, frame_.width, covered, idle, gridX_, pieces);
    for (const auto& piece : pieces)
      ground_.push_back(
          {QRect(piece.span.left, top, piece.span.right - piece.span.left, bottom - top),
           piece.ground});
  };
  const auto lane = [&](Lane l, int y, int h) {
    return Row{y, h, l, &rank.lane(l), &data.index(r, l), -1};
  };
  if (depth.nested() && !track.collapsed) {
    // The rank is idle only where no row has an op: a row is shaded as bubble only outside the
    // boxes of every row (shading each row around its own boxes tinted the rows under a long op
    // idle all along it, a whole lane at a 0.01 % bubble).
    std::vector<std::vector<Span>> rows(static_cast<std::size_t>(depth.rows()));
    std::vector<Span> busy;
    for (int row = 0; row < depth.rows(); ++row) {
      auto& own = rows[static_cast<std::size_t>(row)];
      addRow(data, track,
             Row{track.computeTop + row * track.rowHeight, track.rowHeight, Lane::Compute,
                 &depth.lane(row), &depth.index(row), row},
             &own);
      busy.insert(busy.end(), own.begin(), own.end());
    }
    const std::vector<Span> idle = withoutSpans(shaded, mergeSpans(std::move(busy)));
    for (int row = 0; row < depth.rows(); ++row) {
      covered = std::move(rows[static_cast<std::size_t>(row)]);
      ground(track.computeTop + row * track.rowHeight, track.rowHeight, idle);
    }
  } else {
    const int y = track.computeTop, h = track.computeHeight;
    addRow(data, track, lane(Lane::Compute, y, h), &covered);
    addRow(data, track, lane(Lane::Other, y, h), &covered);
    ground(y, h, shaded);
  }
  if (track.collapsed) return;
  for (const auto& [l, y] :
       {std::pair{Lane::Collective, track.commTop}, std::pair{Lane::Send, track.commTop},
        std::pair{Lane::Recv, track.commTop + track.commHeight}})
    addRow(data, track, lane(l, y, track.commHeight), nullptr);
}

// The boxes of one lane in one row; their drawn spans are merged into `covered` (kept sorted).
void TimelineScene::addRow(const TimelineData& data, const Track& track, const Row& row,
                           std::vector<Span>* covered) {
  const trace::OpColumns& cols = *row.cols;
  if (row.y + row.h <= track.clipTop || row.y >= track.clipBottom || cols.empty()) return;
  const TimeRange& range = frame_.range;
  const double w = plotWidth();
  const QRect clip(kGutter, track.clipTop, frame_.width - kGutter,
                   track.clipBottom - track.clipTop);
  const StageChunks& chunks = data.chunks();
  const bool decorate = chunks.marksChunks() || chunks.marksDirections();
  const std::size_t firstBox = boxes_.size();
  for (const auto& item : trace::queryLane(cols, *row.index, range.start, range.end, w, 2.0)) {
    if (item.start > frame_.revealUntil) continue;  // the Teach replay has not reached it
    const double x0 = std::max(-1.0, timeToPx(range, w, item.start));
    const double x1 = std::min(w + 1, timeToPx(range, w, item.end));
    const int left = kGutter + static_cast<int>(x0);
    const int right = kGutter + std::max(static_cast<int>(x0) + 1, static_cast<int>(x1));
    const QRect rect(left, row.y, right - left, row.h);
    // A one-pixel seam between neighbours keeps back-to-back ops of one kind apart.
    const QRect drawn = (rect.width() > 3 ? rect.adjusted(0, 0, -1, 0) : rect).intersected(clip);
    SceneBox b{rect,       drawn,    item.kind, 0,          0,          false,
               track.rank, row.lane, &cols,     item.first, item.count, item.first};
    if (row.depthRow >= 0) {
      const auto source = data.depth(track.rank).source(row.depthRow, item.first);
      b.lane = source.lane;
      b.op = source.index;
    }
    if (decorate && cols.stage[item.first] >= 0) {
      const auto info = chunks.at(track.rank, cols.stage[item.first]);
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

const SceneBox* TimelineScene::boxAt(QPoint pos) const {
  for (const auto& b : boxes_)
    if (!b.drawn.isEmpty() && b.rect.adjusted(0, 0, 1, 0).contains(pos) &&
        pos.y() >= b.drawn.top() && pos.y() <= b.drawn.bottom())
      return &b;
  return nullptr;
}

const Track* TimelineScene::trackAt(int y) const {
  for (const Track& t : tracks_)
    if (y >= t.clipTop && y < t.clipBottom) return &t;
  return nullptr;
}

const Track* TimelineScene::trackOf(int rank) const {
  for (const Track& t : tracks_)
    if (t.rank == rank) return &t;
  return nullptr;
}

QRect TimelineScene::trackRect(int rank) const {
  const Track* t = trackOf(rank);
  if (!t) return {};
  const int width = frame_.width - kGutter;
  return QRect(kGutter, t->computeTop, width, t->computeHeight)
      .intersected(QRect(kGutter, t->clipTop, width, t->clipBottom - t->clipTop));
}

QRect TimelineScene::opRect(const TimelineData& data, const TimelineOp& op) const {
  const Track* t = data.has(op) ? trackOf(op.rank) : nullptr;
  if (!t) return {};
  const auto& lane = data.run()->ranks[op.rank].lane(op.lane);
  if (lane.start[op.index] > frame_.revealUntil) return {};  // not drawn yet (Teach replay)
  int y = t->computeTop, h = t->computeHeight;
  if (op.lane == Lane::Compute || op.lane == Lane::Other) {
    if (data.depth(op.rank).nested() && !t->collapsed) {
      y += data.depth(op.rank).placeOf(op.lane, op.index).row * t->rowHeight;
      h = t->rowHeight;
    }
  } else if (!t->collapsed) {
    y = op.lane == Lane::Recv ? t->commTop + t->commHeight : t->commTop;
    h = t->commHeight;
  }
  const double w = plotWidth();
  const double x0 = std::max(-2.0, timeToPx(frame_.range, w, lane.start[op.index]));
  const double x1 = std::min(w + 2, timeToPx(frame_.range, w, lane.end[op.index]));
  if (x1 < -1 || x0 > w + 1) return {};
  const int left = kGutter + static_cast<int>(x0);
  const QRect r(left, y, std::max(1, kGutter + static_cast<int>(x1) - left), h);
  return r.intersected(
      QRect(kGutter, t->clipTop, frame_.width - kGutter, t->clipBottom - t->clipTop));
}

}  // namespace ps::ui
