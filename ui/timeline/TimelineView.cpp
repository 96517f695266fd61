#include "ui/timeline/TimelineView.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <numeric>

#include "ui/timeline/RankGutter.h"
#include "ui/timeline/TimelineHover.h"
#include "ui/timeline/TimelineMenu.h"

namespace ps::ui {

namespace {
constexpr std::int64_t kMinLength = 100;  // ns: the deepest zoom
}  // namespace

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
  if (!run()) h = 4 * layout_.trackHeight(0);
  return {900, kAxis + std::max(h, 4 * (kCompute + 2 * kComm + kRowGap)) + 10};
}

void TimelineView::setRun(std::shared_ptr<const trace::RunTrace> run) {
  std::vector<trace::StepStats> steps;
  if (run) steps = trace::analyzeRun(*run).steps;
  setRun(std::move(run), std::move(steps));
}

void TimelineView::setRun(std::shared_ptr<const trace::RunTrace> run,
                          std::vector<trace::StepStats> steps) {
  data_ = TimelineData(std::move(run), std::move(steps));  // no explanation, flows nor search
  selection_ = {};
  deps_ = {};
  painter_.forgetLabels();  // of the last run ("3·1" on an interleaved one)
  band_ = {0, 0};
  history_.clear();
  offset_ = 0;
  const int ranks = data_.run() ? static_cast<int>(data_.run()->ranks.size()) : 0;
  layout_.reset(ranks);
  for (int r = 0; r < ranks; ++r)
    layout_.setDepthRows(r, data_.depth(r).rows());
  range_ = data_.limit();
  sceneValid_ = false;
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
  const TimeRange limit = data_.limit();
  const bool whole = !data_.run() || (range_.start == limit.start && range_.end == limit.end);
  const TimeRange kept = range_;
  const int offset = offset_;
  setRun(std::move(run), std::move(steps));
  if (!whole) setVisibleRange(kept);
  setVerticalOffset(offset);
}

void TimelineView::setVisibleRange(TimeRange range) {
  if (range.end <= range.start) range = rangeFrom(range.start, 1);
  range_ = range;
  invalidateScene();
  emit rangeChanged(range_);
}

void TimelineView::zoomTo(TimeRange range) {
  if (range.end <= range.start) return;
  history_.record(range_);
  setVisibleRange(range);
  emit zoomHistoryChanged();
}

void TimelineView::walkHistory(bool back) {
  if (!(back ? history_.canBack() : history_.canForward())) return;
  setVisibleRange(back ? history_.back(range_) : history_.forward(range_));
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

void TimelineView::invalidateScene() {
  sceneValid_ = false;
  update();
}

void TimelineView::invalidateLayout() {
  offset_ = std::clamp(offset_, 0, maxVerticalOffset());
  invalidateScene();
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

void TimelineView::setVerticalOffset(int offset) {
  offset = std::clamp(offset, 0, maxVerticalOffset());
  if (offset == offset_) return;
  offset_ = offset;
  invalidateScene();
  emitScroll();
}

void TimelineView::emitScroll() {
  emit verticalScrollChanged(offset_, maxVerticalOffset(), scrollPage());
}

std::vector<int> TimelineView::visibleRanks() const {
  std::vector<int> out;
  for (const Track& t : TimelineScene::placeTracks(layout_, {range_, width(), height(), offset_}))
    if (t.clipBottom > t.clipTop) out.push_back(t.rank);
  return out;
}

void TimelineView::resizeEvent(QResizeEvent*) {
  sceneValid_ = false;
  offset_ = std::clamp(offset_, 0, maxVerticalOffset());
  emitScroll();
}

void TimelineView::select(const Selection& selection) {
  const Selection s = data_.has(selection) ? selection : Selection{};
  const bool changed = !(s == selection_);
  selection_ = s;
  // Computed once per selection (a scan of every compute lane, too slow for every paint).
  if (changed)
    deps_ = s.valid() ? opDependencies(*data_.run(), s.rank, s.lane, s.index) : OpDependencies{};
  update();
  if (changed) emit selectionChanged(selection_);
}

void TimelineView::centerOn(const Selection& op) {
  if (!data_.has(op)) return;
  const auto& lane = run()->ranks[op.rank].lane(op.lane);
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

void TimelineView::setFlowsVisible(bool visible) {
  flowsVisible_ = visible;
  if (visible) data_.flows();  // matched now, not in the next paint
  update();
}

void TimelineView::setExplanation(std::shared_ptr<const trace::RunExplanation> why) {
  data_.setExplanation(std::move(why));
  update();
}

const TimelineScene& TimelineView::scene() const {
  if (!sceneValid_) {
    QElapsedTimer timer;
    timer.start();
    scene_.build(data_, layout_,
                 {range_, width(), height(), offset_, reveal_.value_or(trace::kTimeMax)});
    sceneValid_ = true;
    if (data_.run()) lastGeometryMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  }
  return scene_;
}

QRect TimelineView::opRect(const Selection& op) const {
  return data_.has(op) ? scene().opRect(data_, op) : QRect();
}

QString TimelineView::tooltipAt(QPoint pos) {
  return run() ? hoverText(scene(), data_, pos, band_) : QString();
}

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  const TimelineScene& built = scene();
  QPainter p(this);
  const PaintTarget target{
      palette(), font(), *this, hasFocus(), layout_.generation(), layout_.pinnedHeight()};
  if (!run()) return TimelinePainter::paintEmpty(p, rect(), target);
  const bool past = !reveal_;  // a replay hides what would show the future
  OverlayState state{selection_,
                     &deps_,
                     flowsVisible_ && past,
                     causesVisible_ && past,
                     pathVisible_ && past,
                     slackVisible_ && past,
                     {},
                     band_};
  if (drag_ == Drag::Band || drag_ == Drag::ZoomRange) state.dragX = {rangeFromX_, rangeToX_};
  drawn_ = buildOverlays(built, data_, state);
  painter_.paint(p, built, data_, drawn_, target);
  lastPaintMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

bool TimelineView::gutterClick(QPoint pos) {
  const Track* t = scene().trackAt(pos.y());
  const RankGutter::Mark mark = t ? RankGutter::markAt(pos.x()) : RankGutter::Mark::None;
  if (mark == RankGutter::Mark::Disclosure) setTrackCollapsed(t->rank, !t->collapsed);
  if (mark == RankGutter::Mark::Pin) setTrackPinned(t->rank, !t->pinned);
  return mark != RankGutter::Mark::None;
}

void TimelineView::zoomAroundPointer(double factor) {
  const bool over = pointerInside_ && pointer_.x() >= kGutter && rect().contains(pointer_);
  const double x = over ? pointer_.x() - kGutter : plotWidth() / 2;
  zoomTo(zoomAround(range_, plotWidth(), x, factor, kMinLength, data_.limit()));
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
    setVisibleRange(zoomAround(range_, plotWidth(), x, factor, kMinLength, data_.limit()));
    emit zoomHistoryChanged();
  } else if ((e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
    const int d = std::abs(delta.x()) > std::abs(delta.y()) ? delta.x() : delta.y();
    setVisibleRange(panByPx(range_, plotWidth(), -d / 2.0, data_.limit()));
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
  if (run() && e->pos().x() < kGutter && e->pos().y() >= kAxis && gutterClick(e->pos())) {
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
    setVisibleRange(panByPx(dragRange_, plotWidth(), dragFrom_.x() - e->pos().x(), data_.limit()));
    setVerticalOffset(dragOffset_ + dragFrom_.y() - e->pos().y());
    return;
  }
  if (!run()) return;
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
  const TimeRange dragged{pxToTime(range_, w, a), pxToTime(range_, w, b)};
  if (drag == Drag::ZoomRange) {
    if (b - a > 3) zoomTo(dragged);
    update();
  } else if (drag == Drag::Band) {
    setRangeBand(b - a > 3 ? dragged : TimeRange{0, 0});  // a click on the axis clears it
  } else if (drag == Drag::Pan && (e->pos() - dragFrom_).manhattanLength() < 3) {
    // A click (no drag) selects the op under the mouse, or clears the selection.
    const SceneBox* box = scene().boxAt(e->pos());
    select(box && box->count == 1 ? Selection{box->rank, box->lane, box->op} : Selection{});
  }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
  if (hasRangeBand() && e->pos().x() >= kGutter) {
    const double x0 = kGutter + timeToPx(range_, plotWidth(), band_.start);
    const double x1 = kGutter + timeToPx(range_, plotWidth(), band_.end);
    if (e->pos().x() >= x0 - 2 && e->pos().x() <= x1 + 2) return zoomToBand();
  }
  QWidget::mouseDoubleClickEvent(e);
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::FocusIn || e->type() == QEvent::FocusOut) update();  // the frame
  if (e->type() == QEvent::Leave) pointerInside_ = false;
  return QWidget::event(e);
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  const bool alt = e->modifiers() & Qt::AltModifier;
  const int line = kCompute + 2 * kComm + kRowGap;
  const int page = std::max(line, scrollPage() - line);
  switch (e->key()) {
    case Qt::Key_W:
      return zoomAroundPointer(0.7);
    case Qt::Key_S:
      return zoomAroundPointer(1.0 / 0.7);
    case Qt::Key_A:
    case Qt::Key_D: {
      const double dx = (e->key() == Qt::Key_A ? -plotWidth() : plotWidth()) / 5;
      return setVisibleRange(panByPx(range_, plotWidth(), dx, data_.limit()));
    }
    case Qt::Key_F:
      return fit();
    case Qt::Key_Left:
    case Qt::Key_Right:
      if (!alt) return QWidget::keyPressEvent(e);
      return e->key() == Qt::Key_Left ? zoomBack() : zoomForward();
    case Qt::Key_Backspace:
      return zoomBack();
    case Qt::Key_Return:
    case Qt::Key_Enter:
      return zoomToBand();
    case Qt::Key_Escape:
      if (!hasRangeBand()) return QWidget::keyPressEvent(e);
      return setRangeBand({0, 0});
    case Qt::Key_Up:
    case Qt::Key_Down:
      return setVerticalOffset(offset_ + (e->key() == Qt::Key_Up ? -line : line));
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
      return setVerticalOffset(offset_ + (e->key() == Qt::Key_PageUp ? -page : page));
    default:
      QWidget::keyPressEvent(e);
  }
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  if (!run()) return;
  const Track* t = e->pos().x() < kGutter ? scene().trackAt(e->pos().y()) : nullptr;
  execTimelineMenu(*this, t, e->globalPos());
}

}  // namespace ps::ui
