// What the timeline draws over its cached geometry on every paint: the selection (its
// micro-batch outlined on every rank, arrows from the ops it depends on), send → receive flows,
// the range band with its duration, the focus frame. Cheap: only what is in view.

#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

#include "trace/Units.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

using trace::Lane;

namespace {

void arrow(QPainter& p, QPointF a, QPointF b, const QColor& colour, double head) {
  p.setPen(QPen(colour, 1.5));
  p.drawLine(a, b);
  const QPointF dir = (b - a) / std::max(1.0, std::hypot(b.x() - a.x(), b.y() - a.y()));
  const QPointF n(-dir.y(), dir.x());
  p.setPen(Qt::NoPen);
  p.setBrush(colour);
  p.drawPolygon(QPolygonF({b, b - dir * head + n * head / 2, b - dir * head - n * head / 2}));
}

}  // namespace

bool TimelineView::highlighted(const Box& b) const {
  const auto it = highlights_.find(b.cols);
  if (it == highlights_.end()) return false;
  const auto& list = it->second;
  const auto k = std::lower_bound(list.begin(), list.end(), b.first);
  return k != list.end() && *k < b.first + b.count;
}

QRect TimelineView::opRect(const Selection& op) const {
  if (!run_ || !op.valid() || op.rank >= static_cast<int>(run_->ranks.size())) return {};
  const auto& lane = run_->ranks[op.rank].lane(op.lane);
  if (op.index >= lane.size()) return {};
  // Before the first paint after a change the cached tracks are stale: place them afresh.
  std::vector<Track> fresh;
  const Track* t = nullptr;
  if (geometryValid_) {
    t = trackOf(op.rank);
  } else {
    fresh = placeTracks();
    for (const Track& candidate : fresh)
      if (candidate.rank == op.rank) t = &candidate;
  }
  if (!t) return {};
  int y = t->computeTop, h = t->computeHeight;
  if (op.lane == Lane::Compute || op.lane == Lane::Other) {
    if (depth_[op.rank].nested() && !t->collapsed) {
      y += depth_[op.rank].placeOf(op.lane, op.index).row * t->rowHeight;
      h = t->rowHeight;
    }
  } else if (!t->collapsed) {
    y = op.lane == Lane::Recv ? t->commTop + kComm : t->commTop;
    h = kComm;
  }
  const double w = plotWidth();
  const double x0 = std::max(-2.0, timeToPx(range_, w, lane.start[op.index]));
  const double x1 = std::min(w + 2, timeToPx(range_, w, lane.end[op.index]));
  if (x1 < -1 || x0 > w + 1) return {};
  const int left = kGutter + static_cast<int>(x0);
  const QRect r(left, y, std::max(1, kGutter + static_cast<int>(x1) - left), h);
  return r.intersected(QRect(kGutter, t->clipTop, width() - kGutter, t->clipBottom - t->clipTop));
}

std::vector<std::pair<int, std::size_t>> TimelineView::selectionDependencies() const {
  return dependencies_;
}

// Computed once per selection (a scan of every compute lane, too slow for every paint).
void TimelineView::computeDependencies() {
  dependencies_.clear();
  dependents_.clear();
  if (!run_ || !selection_.valid() || selection_.lane != Lane::Compute) return;
  const auto& lane = run_->ranks[selection_.rank].lane(Lane::Compute);
  const std::size_t i = selection_.index;
  const int stage = lane.stage[i], mb = lane.microbatch[i], step = lane.step[i];
  const trace::OpKind kind = lane.kind[i];
  if (stage < 0 || mb < 0) return;
  // F(s,m) <- F(s-1,m); B/I(s,m) <- B/I(s+1,m) and F(s,m); W(s,m) <- I(s,m).
  auto find = [&](auto& into, int wantStage, std::initializer_list<trace::OpKind> kinds) {
    for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
      const auto& l = run_->ranks[r].lane(Lane::Compute);
      for (std::size_t k = 0; k < l.size(); ++k)
        if (l.stage[k] == wantStage && l.microbatch[k] == mb && l.step[k] == step)
          for (auto want : kinds)
            if (l.kind[k] == want) into.emplace_back(static_cast<int>(r), k);
    }
  };
  using trace::OpKind;
  auto& in = dependencies_;
  if (kind == OpKind::F) find(in, stage - 1, {OpKind::F});
  if (kind == OpKind::B || kind == OpKind::I) {
    find(in, stage + 1, {OpKind::B, OpKind::I});
    find(in, stage, {OpKind::F});
  }
  if (kind == OpKind::W) find(in, stage, {OpKind::I});
  // And the other way: the ops that wait for this one (the same rules read backwards).
  auto& out = dependents_;
  if (kind == OpKind::F) {
    find(out, stage + 1, {OpKind::F});
    find(out, stage, {OpKind::B, OpKind::I});
  }
  if (kind == OpKind::B || kind == OpKind::I) find(out, stage - 1, {OpKind::B, OpKind::I});
  if (kind == OpKind::I) find(out, stage, {OpKind::W});
}

void TimelineView::drawSelection(QPainter& p) {
  if (!run_ || !selection_.valid()) return;
  const QColor text = palette().color(QPalette::WindowText);
  const QRect self = opRect(selection_);
  if (selection_.lane == Lane::Compute) {
    // The same micro-batch everywhere: outlined.
    const auto& lane = run_->ranks[selection_.rank].lane(Lane::Compute);
    const int mb = lane.microbatch[selection_.index], step = lane.step[selection_.index];
    p.setPen(QPen(text, 1));
    p.setBrush(Qt::NoBrush);
    if (mb >= 0)
      for (const Track& t : tracks_) {
        const auto& l = run_->ranks[t.rank].lane(Lane::Compute);
        const std::size_t first = l.lowerBoundStart(range_.start);
        for (std::size_t k = first > 0 ? first - 1 : 0; k < l.size() && l.start[k] < range_.end;
             ++k)
          if (l.microbatch[k] == mb && l.step[k] == step) {
            const QRect r = opRect({t.rank, Lane::Compute, k});
            if (!r.isEmpty()) p.drawRect(r.adjusted(0, 0, -1, -1));
          }
      }
  }
  if (!self.isEmpty()) {
    p.setPen(QPen(palette().color(QPalette::Highlight), self.height() > 10 ? 3 : 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(self.height() > 10 ? self.adjusted(1, 1, -2, -2) : self.adjusted(0, 0, -1, -1));
  }
  // Dependencies: arrows from the end of each producer to the start of the selected op (and on to
  // the ops that wait for it), drawn
  // from the boxes' middles (the labels go on top of them afterwards).
  if (self.isEmpty()) return;
  p.setRenderHint(QPainter::Antialiasing, true);
  for (auto [r, k] : dependencies_) {
    const QRect from = opRect({r, Lane::Compute, k});
    if (from.isEmpty()) continue;
    arrow(p, QPointF(from.right(), from.center().y()), QPointF(self.left(), self.center().y()),
          text, 8);
  }
  // What waits for it, in the highlight colour: from its end to their starts.
  const QColor onward = palette().color(QPalette::Highlight);
  for (auto [r, k] : dependents_) {
    const QRect to = opRect({r, Lane::Compute, k});
    if (to.isEmpty()) continue;
    arrow(p, QPointF(self.right(), self.center().y()), QPointF(to.left(), to.center().y()), onward,
          8);
  }
  p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineView::drawFlows(QPainter& p) {
  drawnFlows_ = 0;
  if (!flowsVisible_ || flows_.empty()) return;
  constexpr std::size_t kMaxFlows = 4000;  // past this the arrows are a grey wash anyway
  QColor colour = palette().color(QPalette::WindowText);
  colour.setAlpha(170);
  const double w = plotWidth();
  auto it =
      std::lower_bound(flows_.begin(), flows_.end(), trace::satSub(range_.start, longestFlow_),
                       [](const Flow& f, std::int64_t t) { return f.start < t; });
  // The y of a lane's middle on a track on screen, kept inside the track's visible part.
  auto laneY = [&](int rank, Lane lane) -> std::optional<double> {
    const Track* t = trackOf(rank);
    if (!t) return std::nullopt;
    const int y = t->collapsed ? t->computeTop + t->computeHeight / 2
                               : (lane == Lane::Recv ? t->commTop + kComm : t->commTop) + kComm / 2;
    return std::clamp(y, t->clipTop, t->clipBottom - 1);
  };
  p.setRenderHint(QPainter::Antialiasing, true);
  for (; it != flows_.end() && it->start < range_.end && drawnFlows_ < kMaxFlows; ++it) {
    if (it->end < range_.start) continue;
    const auto y0 = laneY(it->fromRank, Lane::Send), y1 = laneY(it->toRank, Lane::Recv);
    if (!y0 || !y1) continue;
    const QPointF a(kGutter + std::max(-50.0, timeToPx(range_, w, it->start)), *y0);
    const QPointF b(kGutter + std::min(w + 50, timeToPx(range_, w, it->end)), *y1);
    arrow(p, a, b, colour, 6);
    ++drawnFlows_;
  }
  p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineView::drawRangeBand(QPainter& p) {
  const double w = plotWidth();
  double x0, x1;
  std::int64_t length;
  if (drag_ == Drag::Band || drag_ == Drag::ZoomRange) {
    x0 = std::min(rangeFromX_, rangeToX_);
    x1 = std::max(rangeFromX_, rangeToX_);
    length = trace::satSub(pxToTime(range_, w, x1 - kGutter), pxToTime(range_, w, x0 - kGutter));
  } else if (hasRangeBand()) {
    x0 = kGutter + timeToPx(range_, w, band_.start);
    x1 = kGutter + timeToPx(range_, w, band_.end);
    length = band_.length();
  } else {
    return;
  }
  if (x1 < kGutter || x0 > width()) return;
  x0 = std::max<double>(x0, kGutter);
  x1 = std::min<double>(x1, width());
  QColor fill = palette().color(QPalette::Highlight);
  fill.setAlpha(55);
  const QRect band(static_cast<int>(x0), 0, std::max(1, static_cast<int>(x1 - x0)), height());
  p.fillRect(band, fill);
  fill.setAlpha(200);
  p.fillRect(QRect(band.left(), 0, 1, height()), fill);
  p.fillRect(QRect(band.right(), 0, 1, height()), fill);
  // The live readout sits in the axis strip, inside the band when it fits.
  const QString label = QString("Δ %1").arg(QString::fromStdString(trace::formatDuration(length)));
  const QFontMetrics fm(font());
  const int tw = fm.horizontalAdvance(label) + 8;
  int left = band.center().x() - tw / 2;
  left = std::clamp(left, kGutter, std::max(kGutter, width() - tw - 2));
  const QRect box(left, 2, tw, kAxis - 8);
  p.fillRect(box, palette().color(QPalette::Highlight));
  p.setPen(palette().color(QPalette::HighlightedText));
  p.drawText(box, Qt::AlignCenter, label);
}

void TimelineView::drawFocusFrame(QPainter& p) {
  if (!hasFocus()) return;
  p.setPen(QPen(palette().color(QPalette::Highlight), 2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
}

}  // namespace ps::ui
