// The timeline's mouse and keyboard: wheel scrolls the tracks (ctrl: zoom, shift: pan), drag
// pans, drag on the axis marks a range band, shift+drag zooms to a range, a click selects an op
// or works a track's disclosure and pin marks; hover texts; the keys of Nsight and Perfetto.

#include <QContextMenuEvent>
#include <QDateTime>
#include <QKeyEvent>
#include <QMenu>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>

#include "trace/Units.h"
#include "ui/timeline/TimelineTooltips.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

using trace::Lane;

namespace {
constexpr int kMarkWidth = 15;  // the disclosure mark on the left of a label, the pin on the right
constexpr std::int64_t kMinLength = 100;  // ns: the deepest zoom
}  // namespace

const TimelineView::Box* TimelineView::boxAt(QPoint pos) const {
  for (const auto& b : boxes_)
    if (!b.drawn.isEmpty() && b.rect.adjusted(0, 0, 1, 0).contains(pos) &&
        pos.y() >= b.drawn.top() && pos.y() <= b.drawn.bottom())
      return &b;
  return nullptr;
}

QString TimelineView::tooltipAt(QPoint pos) {
  if (!run_) return {};
  if (!geometryValid_) rebuildGeometry();
  if (pos.x() < kGutter) return gutterTooltip(pos);
  if (pos.y() < kAxis) {
    if (!hasRangeBand()) return {};
    return QString("Δ %1 selected: double-click or Enter zooms to it, Esc clears it")
        .arg(QString::fromStdString(trace::formatDuration(band_.length())));
  }
  if (const Box* b = boxAt(pos)) {
    if (b->count > 1) return foldTooltip(*b->cols, b->first, b->count);
    if (b->lane == Lane::Send || b->lane == Lane::Recv || b->lane == Lane::Collective)
      return commTooltip(*run_, b->rank, b->lane, b->op);
    return opTooltip(*run_, b->rank, b->lane, b->op, chunks_);
  }
  const Track* t = trackAt(pos.y());
  if (t && pos.y() >= t->computeTop && pos.y() < t->computeBottom()) {
    const auto gap =
        idleGapAt(*run_, t->rank, steps_, pxToTime(range_, plotWidth(), pos.x() - kGutter));
    if (gap) {
      QString text = gapTooltip(*run_, *gap, chunks_);
      if (why_) {
        const QString why = idleCauseLines(*run_, causeIndex_, gap->rank, gap->from, gap->to);
        if (!why.isEmpty()) text += "\n" + why;
      }
      return text;
    }
  }
  return {};
}

QString TimelineView::gutterTooltip(QPoint pos) const {
  const Track* t = trackAt(pos.y());
  if (!t) return {};
  const auto& info = run_->ranks[t->rank].info;
  QString text = QString("rank %1").arg(t->rank);
  if (info.host) text += QString("  host %1").arg(QString::fromStdString(*info.host));
  if (info.device) text += QString("  device %1").arg(QString::fromStdString(*info.device));
  return text + (t->collapsed ? QString("\nclick ▸ to expand") : QString("\nclick ▾ to collapse")) +
         (t->pinned ? QString(", the pin to unpin") : QString(", the pin to keep it on top")) +
         "; right-click for more";
}

bool TimelineView::gutterClick(QPoint pos) {
  if (!geometryValid_) rebuildGeometry();
  const Track* t = trackAt(pos.y());
  if (!t) return false;
  const int rank = t->rank;
  if (pos.x() < kMarkWidth) {
    setTrackCollapsed(rank, !layout_.isCollapsed(rank));
    return true;
  }
  if (pos.x() >= kGutter - kMarkWidth) {
    setTrackPinned(rank, !layout_.isPinned(rank));
    return true;
  }
  return false;
}

void TimelineView::zoomAroundPointer(double factor) {
  const bool over = pointerInside_ && pointer_.x() >= kGutter && rect().contains(pointer_);
  const double x = over ? pointer_.x() - kGutter : plotWidth() / 2;
  zoomTo(zoomAround(range_, plotWidth(), x, factor, kMinLength, limit_));
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const QPoint delta = e->angleDelta();
  if (e->modifiers() & Qt::ControlModifier) {
    const double x = e->position().x() - kGutter;
    const double factor = delta.y() > 0 ? 0.8 : 1.25;
    // A burst of wheel steps is one step of the zoom history.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - lastWheelZoomMs_ > 600) history_.record(range_);
    lastWheelZoomMs_ = now;
    setVisibleRange(zoomAround(range_, plotWidth(), x, factor, kMinLength, limit_));
    emit zoomHistoryChanged();
  } else if ((e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
    const int d = std::abs(delta.x()) > std::abs(delta.y()) ? delta.x() : delta.y();
    setVisibleRange(panByPx(range_, plotWidth(), -d / 2.0, limit_));
  } else {
    setVerticalOffset(offset_ - delta.y() / 2);
  }
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  dragFrom_ = e->pos();
  dragRange_ = range_;
  dragOffset_ = offset_;
  if (e->button() != Qt::LeftButton) return;
  if (run_ && e->pos().x() < kGutter && e->pos().y() >= kAxis && gutterClick(e->pos())) {
    drag_ = Drag::None;
    return;
  }
  rangeFromX_ = rangeToX_ = std::max(kGutter, e->pos().x());
  if (e->modifiers() & Qt::ShiftModifier)
    drag_ = Drag::ZoomRange;
  else if (e->pos().y() < kAxis && e->pos().x() >= kGutter)
    drag_ = Drag::Band;
  else
    drag_ = Drag::Pan;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  pointer_ = e->pos();
  pointerInside_ = true;
  if (drag_ == Drag::ZoomRange || drag_ == Drag::Band) {
    rangeToX_ = std::clamp(e->pos().x(), kGutter, width());
    update();
    return;
  }
  if (drag_ == Drag::Pan && (e->buttons() & Qt::LeftButton)) {
    setVisibleRange(panByPx(dragRange_, plotWidth(), dragFrom_.x() - e->pos().x(), limit_));
    setVerticalOffset(dragOffset_ + dragFrom_.y() - e->pos().y());
    return;
  }
  if (!run_) return;
  const QString text = tooltipAt(e->pos());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(e->globalPosition().toPoint(), text, this);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  const Drag drag = drag_;
  drag_ = Drag::None;
  const double w = plotWidth();
  const int a = std::min(rangeFromX_, rangeToX_) - kGutter,
            b = std::max(rangeFromX_, rangeToX_) - kGutter;
  if (drag == Drag::ZoomRange) {
    if (b - a > 3) zoomTo({pxToTime(range_, w, a), pxToTime(range_, w, b)});
    update();
    return;
  }
  if (drag == Drag::Band) {
    // A click on the axis (no drag) clears the band.
    setRangeBand(b - a > 3 ? TimeRange{pxToTime(range_, w, a), pxToTime(range_, w, b)}
                           : TimeRange{0, 0});
    return;
  }
  if (drag != Drag::Pan) return;
  // A click (no drag) selects the op under the mouse, or clears the selection.
  if ((e->pos() - dragFrom_).manhattanLength() < 3) {
    if (!geometryValid_) rebuildGeometry();  // a click may come before the first paint
    const Box* box = boxAt(e->pos());
    if (box && box->count == 1)
      select({box->rank, box->lane, box->op});
    else
      select({});
  }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
  if (hasRangeBand() && e->pos().x() >= kGutter) {
    const double w = plotWidth();
    const double x0 = kGutter + timeToPx(range_, w, band_.start);
    const double x1 = kGutter + timeToPx(range_, w, band_.end);
    if (e->pos().x() >= x0 - 2 && e->pos().x() <= x1 + 2) {
      zoomToBand();
      return;
    }
  }
  QWidget::mouseDoubleClickEvent(e);
}

void TimelineView::leaveEvent(QEvent* e) {
  pointerInside_ = false;
  QWidget::leaveEvent(e);
}

void TimelineView::focusInEvent(QFocusEvent* e) {
  update();
  QWidget::focusInEvent(e);
}

void TimelineView::focusOutEvent(QFocusEvent* e) {
  update();
  QWidget::focusOutEvent(e);
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  const bool alt = e->modifiers() & Qt::AltModifier;
  const int line = kCompute + 2 * kComm + kRowGap;
  switch (e->key()) {
    case Qt::Key_W:
      zoomAroundPointer(0.7);
      break;
    case Qt::Key_S:
      zoomAroundPointer(1.0 / 0.7);
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
    case Qt::Key_Left:
    case Qt::Key_Right:
      if (!alt) return QWidget::keyPressEvent(e);
      e->key() == Qt::Key_Left ? zoomBack() : zoomForward();
      break;
    case Qt::Key_Backspace:
      zoomBack();
      break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      zoomToBand();
      break;
    case Qt::Key_Escape:
      if (!hasRangeBand()) return QWidget::keyPressEvent(e);
      setRangeBand({0, 0});
      break;
    case Qt::Key_Up:
      setVerticalOffset(offset_ - line);
      break;
    case Qt::Key_Down:
      setVerticalOffset(offset_ + line);
      break;
    case Qt::Key_PageUp:
      setVerticalOffset(offset_ - std::max(line, scrollPage() - line));
      break;
    case Qt::Key_PageDown:
      setVerticalOffset(offset_ + std::max(line, scrollPage() - line));
      break;
    default:
      QWidget::keyPressEvent(e);
  }
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  if (!run_) return;
  if (!geometryValid_) rebuildGeometry();
  QMenu menu(this);
  const Track* t = e->pos().x() < kGutter ? trackAt(e->pos().y()) : nullptr;
  if (t) {
    const int rank = t->rank;
    const bool collapsed = t->collapsed, pinned = t->pinned;
    menu.addAction(
        collapsed ? QString("Expand rank %1").arg(rank) : QString("Collapse rank %1").arg(rank),
        this, [this, rank, collapsed] { setTrackCollapsed(rank, !collapsed); });
    menu.addAction(
        pinned ? QString("Unpin rank %1").arg(rank) : QString("Pin rank %1 to the top").arg(rank),
        this, [this, rank, pinned] { setTrackPinned(rank, !pinned); });
    menu.addSeparator();
  }
  menu.addAction("Collapse all ranks", this, [this] { setAllTracksCollapsed(true); });
  menu.addAction("Expand all ranks", this, [this] { setAllTracksCollapsed(false); });
  menu.addSeparator();
  menu.addAction("Zoom back", this, &TimelineView::zoomBack)->setEnabled(canZoomBack());
  menu.addAction("Zoom forward", this, &TimelineView::zoomForward)->setEnabled(canZoomForward());
  menu.addAction("Zoom to range", this, &TimelineView::zoomToBand)->setEnabled(hasRangeBand());
  menu.addAction("Fit", this, &TimelineView::fit);
  QAction* flows = menu.addAction("Show send → receive flows");
  flows->setCheckable(true);
  flows->setChecked(flowsVisible_);
  connect(flows, &QAction::toggled, this, &TimelineView::setFlowsVisible);
  menu.exec(e->globalPos());
}

}  // namespace ps::ui
