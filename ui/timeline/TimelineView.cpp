#include "ui/timeline/TimelineView.h"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QPainter>
#include <QPolygonF>

#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "trace/Units.h"
#include "ui/timeline/KindPalette.h"

namespace ps::ui {

using trace::Lane;

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setObjectName("timelineView");
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(120);
}

QSize TimelineView::sizeHint() const {
  const int ranks = run_ ? static_cast<int>(run_->ranks.size()) : 4;
  return {900, rowTop(ranks) + 10};
}

void TimelineView::setRun(std::shared_ptr<const trace::RunTrace> run) {
  run_ = std::move(run);
  selection_ = {};
  steps_.clear();
  if (run_) steps_ = trace::analyzeRun(*run_).steps;
  auto [lo, hi] = run_ ? run_->timeExtent() : std::pair<std::int64_t, std::int64_t>{0, 1};
  if (hi <= lo) hi = lo + 1;
  const std::int64_t margin = std::max<std::int64_t>(1, (hi - lo) / 50);
  limit_ = {lo - margin, hi + margin};
  range_ = limit_;
  geometryValid_ = false;
  updateGeometry();
  update();
  emit rangeChanged(range_);
}

void TimelineView::setVisibleRange(TimeRange range) {
  if (range.end <= range.start) range.end = range.start + 1;
  range_ = range;
  geometryValid_ = false;
  update();
  emit rangeChanged(range_);
}

void TimelineView::fit() {
  setVisibleRange(limit_);
}

void TimelineView::resizeEvent(QResizeEvent*) {
  geometryValid_ = false;
}

void TimelineView::rebuildGeometry() {
  boxes_.clear();
  geometryValid_ = true;
  if (!run_) return;
  const double w = plotWidth();
  for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
    const auto& rank = run_->ranks[r];
    const int top = rowTop(static_cast<int>(r));
    struct LaneRow {
      Lane lane;
      int y, h;
    };
    const LaneRow rows[] = {{Lane::Compute, top, kCompute},
                            {Lane::Other, top, kCompute},
                            {Lane::Collective, top + kCompute, kComm},
                            {Lane::Send, top + kCompute, kComm},
                            {Lane::Recv, top + kCompute + kComm, kComm}};
    for (const auto& row : rows) {
      for (const auto& item :
           trace::queryLane(rank.lane(row.lane), range_.start, range_.end, w, 2.0)) {
        const double x0 = std::max(-1.0, timeToPx(range_, w, item.start));
        const double x1 = std::min(w + 1, timeToPx(range_, w, item.end));
        const int left = kGutter + static_cast<int>(x0);
        const int right = kGutter + std::max(static_cast<int>(x0) + 1, static_cast<int>(x1));
        boxes_.push_back({QRect(left, row.y, right - left, row.h), item.kind, static_cast<int>(r),
                          row.lane, item.first, item.count});
      }
    }
  }
  drawnItems_ = boxes_.size();
}

void TimelineView::drawAxis(QPainter& p) {
  const double w = plotWidth();
  const std::int64_t step = tickStep(range_, w, 90);
  const QColor fg = palette().color(QPalette::WindowText);
  p.setPen(fg);
  p.drawLine(kGutter, kAxis - 1, width(), kAxis - 1);
  std::int64_t t = (range_.start / step) * step;
  if (t < range_.start) t += step;
  for (; t <= range_.end; t += step) {
    const int x = kGutter + static_cast<int>(timeToPx(range_, w, t));
    p.setPen(fg);
    p.drawLine(x, kAxis - 6, x, kAxis - 1);
    p.drawText(QRect(x + 3, 2, 120, kAxis - 6), Qt::AlignLeft | Qt::AlignVCenter,
               QString::fromStdString(tickLabel(t, step)));
    QColor grid = fg;
    grid.setAlpha(25);
    p.setPen(grid);
    p.drawLine(x, kAxis, x, height());
  }
}

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  if (!geometryValid_) rebuildGeometry();
  QPainter p(this);
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (!run_) {
    p.drawText(rect(), Qt::AlignCenter, "No run loaded");
    return;
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  const double w = plotWidth();
  // Bubbles: each step's span shaded behind every compute lane; ops paint over it, so what
  // remains visible is idle time inside the step.
  for (const auto& s : steps_) {
    const int x0 = kGutter + static_cast<int>(std::max(-1.0, timeToPx(range_, w, s.start_ns)));
    const int x1 = kGutter + static_cast<int>(std::min(w + 1, timeToPx(range_, w, s.end_ns)));
    if (x1 <= kGutter || x0 >= width()) continue;
    for (std::size_t r = 0; r < run_->ranks.size(); ++r)
      p.fillRect(QRect(std::max(x0, kGutter), rowTop(static_cast<int>(r)),
                       x1 - std::max(x0, kGutter), kCompute),
                 bubbleColor(dark));
  }
  p.setClipRect(QRect(kGutter, 0, width() - kGutter, height()));
  const QFontMetrics fm(font());
  for (const auto& b : boxes_) {
    // A one-pixel seam between neighbours keeps back-to-back ops of one kind apart.
    p.fillRect(b.rect.width() > 3 ? b.rect.adjusted(0, 0, -1, 0) : b.rect, kindColor(b.kind));
    if (b.lane != Lane::Compute || b.count != 1 || b.rect.width() < 16) continue;
    const auto& lane = run_->ranks[b.rank].lane(b.lane);
    const std::int32_t mb = lane.microbatch[b.first];
    if (mb < 0) continue;
    const QString label = QString::number(mb);
    if (fm.horizontalAdvance(label) + 4 > b.rect.width()) continue;
    p.setPen(kindTextColor(b.kind));
    p.drawText(b.rect, Qt::AlignCenter, label);
  }
  p.setClipping(false);
  // Rank labels and the axis.
  p.setPen(palette().color(QPalette::WindowText));
  for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
    const int top = rowTop(static_cast<int>(r));
    p.drawText(QRect(6, top, kGutter - 10, kCompute), Qt::AlignLeft | Qt::AlignVCenter,
               QString("rank %1").arg(r));
    QColor sub = palette().color(QPalette::WindowText);
    sub.setAlpha(120);
    p.setPen(sub);
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.75);
    p.setFont(small);
    p.drawText(QRect(6, top + kCompute, kGutter - 10, 2 * kComm), Qt::AlignLeft | Qt::AlignVCenter,
               "send / recv");
    p.setFont(font());
    p.setPen(palette().color(QPalette::WindowText));
  }
  drawAxis(p);
  drawSelection(p);
  lastPaintMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

const TimelineView::Box* TimelineView::boxAt(QPoint pos) const {
  for (const auto& b : boxes_)
    if (b.rect.adjusted(0, 0, 1, 0).contains(pos)) return &b;
  return nullptr;
}

QString TimelineView::tooltipFor(const Box& b) const {
  const auto& lane = run_->ranks[b.rank].lane(b.lane);
  if (b.count > 1)
    return QString("%1 ops folded (zoom in to see them)\n%2 … %3")
        .arg(b.count)
        .arg(QString::fromStdString(trace::formatDuration(lane.start[b.first])))
        .arg(QString::fromStdString(trace::formatDuration(lane.end[b.first + b.count - 1])));
  const std::size_t i = b.first;
  QString text = QString("%1").arg(QString::fromUtf8(trace::opKindName(lane.kind[i]).data()));
  if (const std::string* name = run_->nameOf(lane.name[i]))
    text += "  " + QString::fromStdString(*name);
  text += QString("\nrank %1").arg(b.rank);
  if (lane.stage[i] >= 0) text += QString("  stage %1").arg(lane.stage[i]);
  if (lane.microbatch[i] >= 0) text += QString("  micro-batch %1").arg(lane.microbatch[i]);
  text += QString("  step %1").arg(lane.step[i]);
  text += QString("\nstart %1  duration %2")
              .arg(QString::fromStdString(trace::formatDuration(lane.start[i])))
              .arg(QString::fromStdString(trace::formatDuration(lane.end[i] - lane.start[i])));
  if (lane.bytes[i] >= 0)
    text += QString("\n%1").arg(QString::fromStdString(trace::formatBytes(lane.bytes[i])));
  if (lane.peer[i] >= 0) text += QString("  peer rank %1").arg(lane.peer[i]);
  return text;
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const double x = e->position().x() - kGutter;
  if (e->modifiers() & Qt::ControlModifier) {
    const double factor = e->angleDelta().y() > 0 ? 0.8 : 1.25;
    setVisibleRange(zoomAround(range_, plotWidth(), x, factor, 100, limit_));
  } else {
    setVisibleRange(panByPx(range_, plotWidth(), -e->angleDelta().y() / 2.0, limit_));
  }
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  dragFrom_ = e->pos();
  dragRange_ = range_;
  if (e->modifiers() & Qt::ShiftModifier) {
    rangeSelecting_ = true;
    rangeFromX_ = rangeToX_ = e->pos().x();
    return;
  }
  dragging_ = true;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (rangeSelecting_) {
    rangeToX_ = e->pos().x();
    update();
    return;
  }
  if (dragging_ && (e->buttons() & Qt::LeftButton)) {
    setVisibleRange(panByPx(dragRange_, plotWidth(), dragFrom_.x() - e->pos().x(), limit_));
    return;
  }
  if (!run_) return;
  if (const Box* b = boxAt(e->pos()))
    QToolTip::showText(e->globalPosition().toPoint(), tooltipFor(*b), this);
  else
    QToolTip::hideText();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (rangeSelecting_) {
    rangeSelecting_ = false;
    const int a = std::min(rangeFromX_, rangeToX_) - kGutter,
              b = std::max(rangeFromX_, rangeToX_) - kGutter;
    if (b - a > 3)
      setVisibleRange({pxToTime(range_, plotWidth(), a), pxToTime(range_, plotWidth(), b)});
    update();
    return;
  }
  dragging_ = false;
  // A click (no drag) selects the op under the mouse, or clears the selection.
  if ((e->pos() - dragFrom_).manhattanLength() < 3) {
    if (!geometryValid_) rebuildGeometry();  // a click may come before the first paint
    const Box* b = boxAt(e->pos());
    if (b && b->count == 1 && b->lane == trace::Lane::Compute)
      select({b->rank, b->lane, b->first});
    else
      select({});
  }
}

void TimelineView::select(const Selection& selection) {
  selection_ = selection;
  update();
}

std::vector<std::pair<int, std::size_t>> TimelineView::selectionDependencies() const {
  std::vector<std::pair<int, std::size_t>> deps;
  if (!run_ || !selection_.valid()) return deps;
  const auto& lane = run_->ranks[selection_.rank].lane(trace::Lane::Compute);
  const std::size_t i = selection_.index;
  const int stage = lane.stage[i], mb = lane.microbatch[i], step = lane.step[i];
  const trace::OpKind kind = lane.kind[i];
  if (stage < 0 || mb < 0) return deps;
  // F(s,m) <- F(s-1,m); B/I(s,m) <- B/I(s+1,m) and F(s,m); W(s,m) <- I(s,m).
  auto find = [&](int wantStage, std::initializer_list<trace::OpKind> kinds) {
    for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
      const auto& l = run_->ranks[r].lane(trace::Lane::Compute);
      for (std::size_t k = 0; k < l.size(); ++k)
        if (l.stage[k] == wantStage && l.microbatch[k] == mb && l.step[k] == step)
          for (auto want : kinds)
            if (l.kind[k] == want) deps.emplace_back(static_cast<int>(r), k);
    }
  };
  using trace::OpKind;
  if (kind == OpKind::F) find(stage - 1, {OpKind::F});
  if (kind == OpKind::B || kind == OpKind::I) {
    find(stage + 1, {OpKind::B, OpKind::I});
    find(stage, {OpKind::F});
  }
  if (kind == OpKind::W) find(stage, {OpKind::I});
  return deps;
}

QRect TimelineView::opRect(int rank, std::size_t index) const {
  const auto& lane = run_->ranks[rank].lane(trace::Lane::Compute);
  const double w = plotWidth();
  const int x0 = kGutter + static_cast<int>(timeToPx(range_, w, lane.start[index]));
  const int x1 = kGutter + static_cast<int>(timeToPx(range_, w, lane.end[index]));
  return QRect(x0, rowTop(rank), std::max(1, x1 - x0), kCompute);
}

void TimelineView::drawSelection(QPainter& p) {
  if (rangeSelecting_) {
    QColor c = palette().color(QPalette::Highlight);
    c.setAlpha(60);
    p.fillRect(
        QRect(std::min(rangeFromX_, rangeToX_), kAxis, std::abs(rangeToX_ - rangeFromX_), height()),
        c);
  }
  if (!run_ || !selection_.valid()) return;
  const auto& lane = run_->ranks[selection_.rank].lane(trace::Lane::Compute);
  const int mb = lane.microbatch[selection_.index], step = lane.step[selection_.index];
  const QColor text = palette().color(QPalette::WindowText);
  // The same micro-batch everywhere: outlined.
  p.setPen(QPen(text, 1));
  p.setBrush(Qt::NoBrush);
  for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
    const auto& l = run_->ranks[r].lane(trace::Lane::Compute);
    const std::size_t first = l.lowerBoundStart(range_.start);
    for (std::size_t k = first > 0 ? first - 1 : 0; k < l.size() && l.start[k] < range_.end; ++k)
      if (l.microbatch[k] == mb && l.step[k] == step)
        p.drawRect(opRect(static_cast<int>(r), k).adjusted(0, 0, -1, -1));
  }
  const QRect self = opRect(selection_.rank, selection_.index);
  p.setPen(QPen(palette().color(QPalette::Highlight), 3));
  p.drawRect(self.adjusted(1, 1, -2, -2));
  // Dependencies: arrows from the end of each producer to the start of the selected op.
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(text, 1.5));
  for (auto [r, k] : selectionDependencies()) {
    const QRect from = opRect(r, k);
    const QPointF a(from.right(), from.center().y()), b(self.left(), self.center().y());
    p.drawLine(a, b);
    const QPointF dir = (b - a) / std::max(1.0, std::hypot(b.x() - a.x(), b.y() - a.y()));
    const QPointF n(-dir.y(), dir.x());
    p.setBrush(text);
    p.drawPolygon(QPolygonF({b, b - dir * 8 + n * 4, b - dir * 8 - n * 4}));
  }
  p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  const double mid = plotWidth() / 2;
  switch (e->key()) {
    case Qt::Key_W:
      setVisibleRange(zoomAround(range_, plotWidth(), mid, 0.7, 100, limit_));
      break;
    case Qt::Key_S:
      setVisibleRange(zoomAround(range_, plotWidth(), mid, 1.0 / 0.7, 100, limit_));
      break;
    case Qt::Key_A:
      setVisibleRange(panByPx(range_, plotWidth(), -plotWidth() / 5, limit_));
      break;
    case Qt::Key_D:
      setVisibleRange(panByPx(range_, plotWidth(), plotWidth() / 5, limit_));
      break;
    case Qt::Key_F:
      fit();
      break;
    default:
      QWidget::keyPressEvent(e);
  }
}

}  // namespace ps::ui
