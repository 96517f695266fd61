#include "ui/timeline/TimelineView.h"

#include <QElapsedTimer>
#include <QHashFunctions>
#include <QKeyEvent>
#include <QPainter>
#include <QPolygonF>

#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "trace/Units.h"
#include "ui/timeline/KindPalette.h"

namespace ps::ui {

using trace::Lane;

namespace {
// `fg` over `bg` at alpha/255, as an opaque colour: the grid drawn behind the boxes.
QColor blend(const QColor& bg, const QColor& fg, int alpha) {
  auto mix = [&](int b, int f) { return b + (f - b) * alpha / 255; };
  return QColor(mix(bg.red(), fg.red()), mix(bg.green(), fg.green()), mix(bg.blue(), fg.blue()));
}
}  // namespace

struct TimelineView::Colours {
  QColor ground[4];  // in Ground's order
  QColor kind[trace::kOpKindCount];
  QColor text;
  const QColor& operator[](Ground g) const { return ground[static_cast<int>(g)]; }
  const QColor& operator[](trace::OpKind k) const { return kind[static_cast<int>(k)]; }
};

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setObjectName("timelineView");
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(120);
  setAttribute(Qt::WA_OpaquePaintEvent);  // every pixel is painted: no erase first
}

QSize TimelineView::sizeHint() const {
  const int ranks = run_ ? static_cast<int>(run_->ranks.size()) : 4;
  return {900, rowTop(ranks) + 10};
}

void TimelineView::setRun(std::shared_ptr<const trace::RunTrace> run) {
  run_ = std::move(run);
  selection_ = {};
  steps_.clear();
  indexes_.clear();
  if (run_) {
    steps_ = trace::analyzeRun(*run_).steps;
    indexes_.resize(run_->ranks.size());
    for (std::size_t r = 0; r < run_->ranks.size(); ++r)
      for (int l = 0; l < trace::kLaneCount; ++l)
        indexes_[r][l] = trace::LaneIndex(run_->ranks[r].lanes[l]);
  }
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

std::size_t TimelineView::indexBytes() const {
  std::size_t n = indexes_.capacity() * sizeof(indexes_[0]);
  for (const auto& lanes : indexes_)
    for (const auto& index : lanes)
      n += index.bytes() - sizeof(index);
  return n;
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
  QElapsedTimer timer;
  timer.start();
  boxes_.clear();
  ground_.clear();
  plainStrips_.clear();
  ticks_.clear();
  gridX_.clear();
  geometryValid_ = true;
  ++generation_;
  if (!run_) return;
  const double w = plotWidth();
  tickStep_ = tickStep(range_, w, 90);
  std::int64_t t = (range_.start / tickStep_) * tickStep_;
  if (t < range_.start) t += tickStep_;
  for (; t <= range_.end; t += tickStep_) {
    ticks_.push_back(t);
    gridX_.push_back(kGutter + static_cast<int>(timeToPx(range_, w, t)));
  }
  // Bubbles: each step's span is shaded behind the compute lanes; what shows between the ops
  // is idle time inside the step. Steps are the same on every rank: one set of spans.
  std::vector<Span> shaded;
  for (const auto& s : steps_) {
    const int x0 = kGutter + static_cast<int>(std::max(-1.0, timeToPx(range_, w, s.start_ns)));
    const int x1 = kGutter + static_cast<int>(std::min(w + 1, timeToPx(range_, w, s.end_ns)));
    shaded.push_back({std::max(x0, kGutter), x1});
  }
  shaded = mergeSpans(std::move(shaded));
  int y = kAxis;
  for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
    const int top = rowTop(static_cast<int>(r));
    if (top >= height()) break;
    if (top > y) plainStrips_.push_back(QRect(kGutter, y, width() - kGutter, top - y));
    addBand(static_cast<int>(r), top, shaded);
    y = top + kCompute;
  }
  if (y < height()) plainStrips_.push_back(QRect(kGutter, y, width() - kGutter, height() - y));
  drawnItems_ = boxes_.size();
  lastGeometryMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

// One rank: its boxes, and the compute band's background cut around the compute boxes.
void TimelineView::addBand(int r, int top, const std::vector<Span>& shaded) {
  const auto& rank = run_->ranks[r];
  const double w = plotWidth();
  struct LaneRow {
    Lane lane;
    int y, h;
  };
  const LaneRow rows[] = {{Lane::Compute, top, kCompute},
                          {Lane::Other, top, kCompute},
                          {Lane::Collective, top + kCompute, kComm},
                          {Lane::Send, top + kCompute, kComm},
                          {Lane::Recv, top + kCompute + kComm, kComm}};
  const QRect plot(kGutter, 0, width() - kGutter, height());
  std::vector<Span> covered;
  for (const auto& row : rows) {
    const std::size_t first = boxes_.size();
    for (const auto& item :
         trace::queryLane(rank.lane(row.lane), indexes_[r][static_cast<int>(row.lane)],
                          range_.start, range_.end, w, 2.0)) {
      const double x0 = std::max(-1.0, timeToPx(range_, w, item.start));
      const double x1 = std::min(w + 1, timeToPx(range_, w, item.end));
      const int left = kGutter + static_cast<int>(x0);
      const int right = kGutter + std::max(static_cast<int>(x0) + 1, static_cast<int>(x1));
      const QRect rect(left, row.y, right - left, row.h);
      // A one-pixel seam between neighbours keeps back-to-back ops of one kind apart.
      const QRect drawn = (rect.width() > 3 ? rect.adjusted(0, 0, -1, 0) : rect).intersected(plot);
      boxes_.push_back({rect, drawn, item.kind, r, row.lane, item.first, item.count});
    }
    if (row.y != top) continue;
    const std::size_t mid = covered.size();
    for (std::size_t k = first; k < boxes_.size(); ++k)
      if (!boxes_[k].drawn.isEmpty())
        covered.push_back({boxes_[k].drawn.left(), boxes_[k].drawn.right() + 1});
    std::inplace_merge(covered.begin(), covered.begin() + static_cast<std::ptrdiff_t>(mid),
                       covered.end(), [](const Span& a, const Span& b) { return a.left < b.left; });
  }
  std::vector<GroundPiece> pieces;
  composeStrip(kGutter, width(), covered, shaded, gridX_, pieces);
  const int h = std::min(kCompute, height() - top);
  for (const auto& piece : pieces)
    ground_.push_back(
        {QRect(piece.span.left, top, piece.span.right - piece.span.left, h), piece.ground});
}

TimelineView::Colours TimelineView::colours() const {
  Colours c;
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const QColor base = palette().color(QPalette::Base), bubble = bubbleColor(dark);
  c.text = palette().color(QPalette::WindowText);
  c.ground[static_cast<int>(Ground::Plain)] = base;
  c.ground[static_cast<int>(Ground::Shaded)] = bubble;
  c.ground[static_cast<int>(Ground::GridOnPlain)] = blend(base, c.text, 25);
  c.ground[static_cast<int>(Ground::GridOnShaded)] = blend(bubble, c.text, 25);
  for (int k = 0; k < trace::kOpKindCount; ++k)
    c.kind[k] = kindColor(static_cast<trace::OpKind>(k));
  return c;
}

void TimelineView::fillPlain(QPainter& p, const QRect& strip, const Colours& c) const {
  p.fillRect(strip, c[Ground::Plain]);
  for (int x : gridX_)
    p.fillRect(QRect(x, strip.y(), 1, strip.height()), c[Ground::GridOnPlain]);
}

// The strips between compute bands are all alike: where a cached image can be blitted 1:1, one
// strip is drawn at device resolution and copied down the view (a fill with grid columns costs
// a call per row per column). Elsewhere (SVG, fractional scales) they are filled.
void TimelineView::paintPlainStrips(QPainter& p, const Colours& c, int scale) {
  if (!scale) {
    for (const QRect& strip : plainStrips_)
      fillPlain(p, strip, c);
    return;
  }
  int tallest = 1;
  for (const QRect& strip : plainStrips_)
    tallest = std::max(tallest, strip.height());
  const QRect cached(kGutter, 0, width() - kGutter, std::min(tallest, 64));
  const auto key =
      qHashMulti(0, generation_, c[Ground::Plain].rgba(), c[Ground::GridOnPlain].rgba());
  plainCache_.image(key, cached.size(), scale, *this, [&](QPainter& cp) {
    cp.translate(-kGutter, 0);
    fillPlain(cp, cached, c);
  });
  for (const QRect& strip : plainStrips_)
    for (int y = strip.top(); y <= strip.bottom(); y += cached.height()) {
      const int h = std::min(cached.height(), strip.bottom() + 1 - y);
      plainCache_.blit(p, {kGutter, y}, QRect(0, 0, cached.width(), h));
    }
}

// The rank labels change only with the run, the font, the palette and the height.
void TimelineView::paintGutter(QPainter& p, const Colours& c, int scale) {
  const QRect gutter(0, 0, kGutter, height());
  const QColor base = c[Ground::Plain];
  if (!scale) {
    p.fillRect(gutter, base);
    drawRankLabels(p);
    return;
  }
  const auto key = qHashMulti(0, run_->ranks.size(), font(), base.rgba(), c.text.rgba());
  gutterCache_.image(key, gutter.size(), scale, *this, [&](QPainter& cp) {
    cp.fillRect(gutter, base);
    cp.setFont(font());
    drawRankLabels(cp);
  });
  gutterCache_.blit(p, {0, 0}, gutter);
}

void TimelineView::drawAxis(QPainter& p, const QColor& fg) {
  p.fillRect(QRect(kGutter, kAxis - 1, width() - kGutter, 1), fg);
  p.setPen(fg);
  const QFontMetricsF fm(font());
  const double baseline = 2 + (kAxis - 6 - fm.height()) / 2 + fm.ascent();
  for (std::size_t k = 0; k < ticks_.size(); ++k) {
    p.fillRect(QRect(gridX_[k], kAxis - 6, 1, 6), fg);
    p.drawText(QPointF(gridX_[k] + 3, baseline),
               QString::fromStdString(tickLabel(ticks_[k], tickStep_)));
  }
}

// Micro-batch numbers inside single compute ops wide enough for them, laid out once per number.
void TimelineView::drawBoxLabels(QPainter& p) {
  p.setClipRect(QRect(kGutter, 0, width() - kGutter, height()));
  for (const auto& b : boxes_) {
    if (b.lane != Lane::Compute || b.count != 1 || b.rect.width() < 16) continue;
    const std::int32_t mb = run_->ranks[b.rank].lane(b.lane).microbatch[b.first];
    if (mb < 0) continue;
    QStaticText spare;
    QStaticText* text = &spare;
    if (mb < (1 << 16)) {
      if (static_cast<std::size_t>(mb) >= numberText_.size()) numberText_.resize(mb + 1);
      text = &numberText_[mb];
    }
    if (text->text().isEmpty()) {
      text->setText(QString::number(mb));
      text->setTextFormat(Qt::PlainText);
    }
    const QSizeF size = text->size();
    if (size.width() + 4 > b.rect.width()) continue;
    p.setPen(kindTextColor(b.kind));
    p.drawStaticText(QPointF(b.rect.x() + (b.rect.width() - size.width()) / 2,
                             b.rect.y() + (b.rect.height() - size.height()) / 2),
                     *text);
  }
  p.setClipping(false);
}

void TimelineView::drawRankLabels(QPainter& p) const {
  const QColor text = palette().color(QPalette::WindowText);
  QColor sub = text;
  sub.setAlpha(120);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.75);
  for (int r = 0; r < static_cast<int>(run_->ranks.size()) && rowTop(r) < height(); ++r) {
    const int top = rowTop(r);
    p.setPen(text);
    p.setFont(font());
    p.drawText(QRect(6, top, kGutter - 10, kCompute), Qt::AlignLeft | Qt::AlignVCenter,
               QString("rank %1").arg(r));
    p.setPen(sub);
    p.setFont(small);
    p.drawText(QRect(6, top + kCompute, kGutter - 10, 2 * kComm), Qt::AlignLeft | Qt::AlignVCenter,
               "send / recv");
  }
  p.setFont(font());
}

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  if (!geometryValid_) rebuildGeometry();
  QPainter p(this);
  const Colours c = colours();
  if (!run_) {
    p.fillRect(rect(), c[Ground::Plain]);
    p.drawText(rect(), Qt::AlignCenter, "No run loaded");
    return;
  }
  if (textFont_ != font()) {
    textFont_ = font();
    numberText_.clear();
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  const int scale = DevicePixelCache::blitScale(p);
  paintGutter(p, c, scale);
  p.fillRect(QRect(kGutter, 0, width() - kGutter, kAxis), c[Ground::Plain]);
  paintPlainStrips(p, c, scale);
  for (const auto& g : ground_)
    p.fillRect(g.rect, c[g.ground]);
  for (const auto& b : boxes_)
    if (!b.drawn.isEmpty()) p.fillRect(b.drawn, c[b.kind]);
  drawBoxLabels(p);
  drawAxis(p, c.text);
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
