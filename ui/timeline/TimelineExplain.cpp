// The explanation overlays of the timeline: idle parts tinted or hatched by cause under the
// boxes (an op of another step that runs in a gap still draws on top), and the critical path
// outlined op by op and joined by a line, over them.

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

#include "ui/timeline/TimelineView.h"

namespace ps::ui {

void TimelineView::setExplanation(std::shared_ptr<const trace::RunExplanation> why) {
  why_ = std::move(why);
  causeIndex_ = why_ ? IdleCauseIndex(why_->bubbles) : IdleCauseIndex();
  update();
}

void TimelineView::setIdleCausesVisible(bool visible) {
  causesVisible_ = visible;
  update();
}

void TimelineView::setCriticalPathVisible(bool visible) {
  pathVisible_ = visible;
  update();
}

void TimelineView::drawIdleCauses(QPainter& p, bool dark) {
  drawnCauseParts_ = 0;
  if (!why_ || !causesVisible_ || !run_) return;
  const double w = plotWidth();
  const QRect plot = plotRect();
  for (const Track& t : tracks_) {
    const int top = std::max(t.computeTop, t.clipTop);
    const int bottom = std::min(t.computeBottom(), t.clipBottom);
    if (bottom <= top) continue;
    causeIndex_.forEachIn(t.rank, range_.start, range_.end, [&](const trace::IdlePart& part) {
      const int x0 = kGutter + static_cast<int>(timeToPx(range_, w, part.start));
      const int x1 = kGutter + static_cast<int>(timeToPx(range_, w, part.end));
      if (x1 <= x0) return;  // under a pixel: the shaded ground says "idle" already
      // One pixel wider each side, under the boxes painted next: the boxes' device-pixel edges
      // (a 2x screen) then never leave a sliver of plain shade beside a cause.
      const QRect r = QRect(x0 - 1, top, x1 - x0 + 2, bottom - top).intersected(plot);
      if (r.isEmpty()) return;
      const QBrush brush = idleCauseBrush(part.cause, dark);
      if (brush.style() != Qt::SolidPattern) {
        QColor tint = brush.color();
        tint.setAlpha(dark ? 70 : 45);
        p.fillRect(r, tint);
      }
      p.fillRect(r, brush);
      ++drawnCauseParts_;
    });
  }
}

void TimelineView::drawCriticalPath(QPainter& p) {
  drawnPathOps_ = 0;
  if (!why_ || !why_->path || !pathVisible_ || !run_) return;
  const QColor outline(240, 228, 66);  // Okabe-Ito yellow, with a dark edge to read on any kind
  const QColor edge(0, 0, 0, 160);
  QPainterPath line;
  bool started = false;
  std::vector<QRect> rects;
  for (const trace::OpRef& op : why_->path->ops) {
    const QRect r = opRect({op.rank, op.lane, op.index});
    if (r.isEmpty()) {
      started = false;  // off screen: the line resumes at the next op in view
      continue;
    }
    const QPointF centre = QRectF(r).center();
    if (started)
      line.lineTo(centre);
    else
      line.moveTo(centre);
    started = true;
    rects.push_back(r);
  }
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(edge, 4));
  p.drawPath(line);
  p.setPen(QPen(outline, 2));
  p.drawPath(line);
  p.setRenderHint(QPainter::Antialiasing, false);
  for (const QRect& r : rects) {
    p.setPen(QPen(edge, 1));
    p.drawRect(r.adjusted(-2, -2, 1, 1));
    p.setPen(QPen(outline, 2));
    p.drawRect(r.adjusted(-1, -1, 0, 0));
  }
  p.restore();
  drawnPathOps_ = rects.size();
}

}  // namespace ps::ui
