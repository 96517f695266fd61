#include "ui/teach/InFlightOverlay.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

#include "trace/analysis/Saturating.h"
#include "ui/timeline/TimeMapping.h"
#include "ui/timeline/TimelineScene.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

InFlightOverlay::InFlightOverlay(TimelineView* view) : QWidget(view), view_(view) {
  setObjectName("teachInFlight");
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setAttribute(Qt::WA_NoSystemBackground);
  setGeometry(view->rect());
  view->installEventFilter(this);
  hide();
}

void InFlightOverlay::setSeries(std::shared_ptr<const trace::ActivationsInFlight> series) {
  series_ = std::move(series);
  peak_ = 0;
  if (series_)
    for (int p : series_->peak)
      peak_ = std::max(peak_, p);
  update();
}

void InFlightOverlay::setUntil(std::optional<std::int64_t> t) {
  until_ = t;
  update();
}

bool InFlightOverlay::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_ && event->type() == QEvent::Resize) setGeometry(view_->rect());
  return QWidget::eventFilter(watched, event);
}

void InFlightOverlay::paintEvent(QPaintEvent*) {
  drawnLanes_ = 0;
  if (!series_ || peak_ <= 0 || !view_->run()) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  const TimeRange range = view_->visibleRange();
  const double width =
      std::max(1, view_->width() - TimelineScene::kGutter - TimelineScene::kRightMargin);
  auto xOf = [&](std::int64_t t) {
    return TimelineScene::kGutter + std::clamp(timeToPx(range, width, t), -2.0, width + 2);
  };
  const std::int64_t end = until_.value_or(range.end);
  const double xEnd = xOf(std::min(end, range.end));
  QColor line = palette().color(QPalette::Highlight);
  QColor fill = line;
  fill.setAlpha(70);
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  p.setFont(small);
  for (int rank : view_->visibleRanks()) {
    const QRect band = view_->trackRect(rank);
    if (band.height() < 8 || static_cast<std::size_t>(rank) >= series_->ranks.size()) continue;
    const auto& steps = series_->ranks[rank];
    if (steps.empty()) continue;
    // The bottom third of the band: 0 at its bottom edge, the run's peak at its top.
    const int h = std::max(4, band.height() / 3);
    const double bottom = band.bottom() - 0.5;
    auto yOf = [&](int count) { return bottom - static_cast<double>(count) * h / peak_; };
    QPainterPath path;
    int count = series_->at(rank, range.start);
    path.moveTo(TimelineScene::kGutter, yOf(count));
    for (const auto& s : steps) {
      if (s.t <= range.start) continue;
      if (s.t > end || s.t > range.end) break;
      // At the replay's time: what the op starting then sees (the Teach table's count).
      const int next = s.t == end && until_ ? s.seenAt : s.count;
      const double x = xOf(s.t);
      path.lineTo(x, yOf(count));
      path.lineTo(x, yOf(next));
      count = next;
    }
    path.lineTo(xEnd, yOf(count));
    QPainterPath area = path;
    area.lineTo(xEnd, bottom);
    area.lineTo(TimelineScene::kGutter, bottom);
    area.closeSubpath();
    p.setClipRect(band);
    p.fillPath(area, fill);
    p.setPen(QPen(line, 1.5));
    p.drawPath(path);
    p.setClipping(false);
    ++drawnLanes_;
    // The count now, in the blank part of the lane after the replay's time (a whole run has no
    // blank part: the line alone).
    if (!until_) continue;
    const QString label = QString("%1 in flight").arg(series_->seenAt(rank, end));
    const int textWidth = p.fontMetrics().horizontalAdvance(label);
    // After the rank's ops drawn so far: one still running reaches past the replay's time.
    const auto& ops = view_->run()->ranks[rank].lane(trace::Lane::Compute);
    std::int64_t drawnEnd = end;
    for (std::size_t i = ops.lowerBoundStart(trace::satAdd(end, 1)); i-- > 0;) {
      drawnEnd = std::max(drawnEnd, ops.end[i]);
      if (ops.end[i] < end) break;  // ops before it end earlier too (one op at a time per lane)
    }
    const int x = static_cast<int>(xOf(std::min(drawnEnd, range.end))) + 4;
    if (x + textWidth < band.right()) {
      p.setPen(palette().color(QPalette::WindowText));
      p.drawText(QRect(x, band.top(), textWidth + 2, band.height()),
                 Qt::AlignVCenter | Qt::AlignLeft, label);
    }
  }
}

}  // namespace ps::ui
