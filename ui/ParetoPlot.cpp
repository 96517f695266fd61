#include "ui/ParetoPlot.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "trace/Units.h"

namespace ps::ui {
namespace {

constexpr double kMargin = 8, kTitle = 18, kBottom = 34;
constexpr double kPickPx = 7;

// `share` of `over` on `base`.
QColor blend(const QColor& over, const QColor& base, double share) {
  const auto mix = [&](int a, int b) {
    return static_cast<int>(std::lround(share * a + (1 - share) * b));
  };
  return QColor(mix(over.red(), base.red()), mix(over.green(), base.green()),
                mix(over.blue(), base.blue()));
}

}  // namespace

QColor paretoFrontColour(const QPalette& palette) {
  return palette.color(QPalette::Base).lightness() < 128 ? QColor(86, 180, 233)
                                                         : QColor(0, 114, 178);
}

QColor paretoOtherColour(const QPalette& palette) {
  return blend(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.5);
}

std::vector<int> paretoFront(const std::vector<ParetoPoint>& points) {
  std::vector<int> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (points[a].memoryBytes != points[b].memoryBytes)
      return points[a].memoryBytes < points[b].memoryBytes;
    return points[a].nsPerMicrobatch < points[b].nsPerMicrobatch;
  });
  std::vector<int> front;
  double best = std::numeric_limits<double>::infinity();
  for (int i : order)
    if (points[i].nsPerMicrobatch < best) {
      best = points[i].nsPerMicrobatch;
      front.push_back(i);
    }
  return front;
}

ParetoPlot::ParetoPlot(QWidget* parent) : QWidget(parent) {
  setObjectName("paretoPlot");
  setMouseTracking(true);
  setMinimumHeight(160);
}

void ParetoPlot::setPoints(std::vector<ParetoPoint> points, std::optional<double> capBytes) {
  points_ = std::move(points);
  cap_ = capBytes;
  front_ = paretoFront(points_);
  selected_ = -1;
  if (!points_.empty()) {
    auto [x0, x1] = std::minmax_element(
        points_.begin(), points_.end(),
        [](const auto& a, const auto& b) { return a.memoryBytes < b.memoryBytes; });
    auto [y0, y1] = std::minmax_element(
        points_.begin(), points_.end(),
        [](const auto& a, const auto& b) { return a.nsPerMicrobatch < b.nsPerMicrobatch; });
    // Some air around the points; a flat axis still spans something.
    const double dx = std::max(x1->memoryBytes - x0->memoryBytes, x1->memoryBytes * 0.1 + 1);
    const double dy =
        std::max(y1->nsPerMicrobatch - y0->nsPerMicrobatch, y1->nsPerMicrobatch * 0.1 + 1);
    xMin_ = std::max(0.0, x0->memoryBytes - 0.05 * dx);
    xMax_ = std::max(x1->memoryBytes, cap_.value_or(0)) + 0.05 * dx;
    yMin_ = std::max(0.0, y0->nsPerMicrobatch - 0.05 * dy);
    yMax_ = y1->nsPerMicrobatch + 0.05 * dy;
  }
  update();
}

void ParetoPlot::setSelected(int index) {
  selected_ = index;
  update();
}

// Room on the left for the rotated axis title and the widest time label.
double ParetoPlot::leftMargin() const {
  return kTitle + fontMetrics().horizontalAdvance("000.000 ms") + 6;
}

QRectF ParetoPlot::plotRect() const {
  const double left = leftMargin();
  return QRectF(left, kMargin, width() - left - kMargin, height() - kMargin - kBottom);
}

QPointF ParetoPlot::positionOf(int index) const {
  const QRectF r = plotRect();
  const auto& p = points_[static_cast<std::size_t>(index)];
  return {r.left() + (p.memoryBytes - xMin_) / (xMax_ - xMin_) * r.width(),
          r.bottom() - (p.nsPerMicrobatch - yMin_) / (yMax_ - yMin_) * r.height()};
}

int ParetoPlot::pointAt(QPointF pos) const {
  int best = -1;
  double bestD = kPickPx * kPickPx;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i) {
    const QPointF d = positionOf(i) - pos;
    const double d2 = d.x() * d.x() + d.y() * d.y();
    if (d2 <= bestD) {
      bestD = d2;
      best = i;
    }
  }
  return best;
}

void ParetoPlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.base());
  const QRectF r = plotRect();
  p.setPen(blend(pal.color(QPalette::Text), pal.color(QPalette::Base), 0.3));
  p.drawRect(r);
  p.setPen(pal.color(QPalette::Text));
  if (points_.empty()) {
    p.drawText(rect(), Qt::AlignCenter,
               "Explore sweeps plans around the Plan panel's model;\nSynthesise searches one under "
               "its memory caps");
    return;
  }
  // Axis ends: memory at the bottom, time per micro-batch at the left.
  const auto bytes = [](double b) {
    return QString::fromStdString(trace::formatBytes(static_cast<std::int64_t>(b)));
  };
  const auto time = [](double ns) {
    return QString::fromStdString(trace::formatDuration(static_cast<std::int64_t>(ns)));
  };
  p.drawText(QRectF(r.left(), r.bottom() + 2, 120, 14), Qt::AlignLeft, bytes(xMin_));
  p.drawText(QRectF(r.right() - 120, r.bottom() + 2, 120, 14), Qt::AlignRight, bytes(xMax_));
  p.drawText(QRectF(r.left(), r.bottom() + 16, r.width(), 14), Qt::AlignHCenter,
             "largest peak memory");
  const double labelWidth = r.left() - kTitle - 4;
  p.drawText(QRectF(kTitle, r.top(), labelWidth, 14), Qt::AlignRight, time(yMax_));
  p.drawText(QRectF(kTitle, r.bottom() - 14, labelWidth, 14), Qt::AlignRight, time(yMin_));
  p.save();
  p.translate(kTitle - 6, r.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-80, -10, 160, 14), Qt::AlignCenter, "time / micro-batch");
  p.restore();

  if (cap_) {  // the cap the synthesiser searched under; points right of it do not fit
    const double x = r.left() + (*cap_ - xMin_) / (xMax_ - xMin_) * r.width();
    p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DashLine));
    p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    p.drawText(QRectF(x - 124, r.top() + 2, 120, 14), Qt::AlignRight, "cap " + bytes(*cap_));
  }
  const QColor frontColour = paretoFrontColour(pal), otherColour = paretoOtherColour(pal);
  QPainterPath line;
  for (std::size_t k = 0; k < front_.size(); ++k)
    k == 0 ? line.moveTo(positionOf(front_[k])) : line.lineTo(positionOf(front_[k]));
  p.setPen(QPen(frontColour, 1.5));
  p.drawPath(line);
  std::vector<bool> onFront(points_.size(), false);
  for (int i : front_)
    onFront[static_cast<std::size_t>(i)] = true;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i) {
    const QPointF c = positionOf(i);
    p.setPen(QPen(onFront[i] ? frontColour : otherColour, 1.2));
    p.setBrush(onFront[i] ? QBrush(frontColour) : Qt::NoBrush);
    if (points_[static_cast<std::size_t>(i)].synthesised) {
      const QPolygonF diamond{c + QPointF(0, -6), c + QPointF(6, 0), c + QPointF(0, 6),
                              c + QPointF(-6, 0)};
      p.setBrush(QColor(0, 158, 115));  // Okabe–Ito bluish green
      p.drawPolygon(diamond);
      continue;
    }
    p.drawEllipse(c, 3.5, 3.5);
  }
  if (selected_ >= 0 && selected_ < static_cast<int>(points_.size())) {
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(213, 94, 0), 2));  // Okabe–Ito vermillion
    p.drawEllipse(positionOf(selected_), 7, 7);
  }
}

void ParetoPlot::mouseMoveEvent(QMouseEvent* event) {
  const int i = pointAt(event->position());
  if (i < 0) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(event->globalPosition().toPoint(), points_[static_cast<std::size_t>(i)].label,
                     this);
}

void ParetoPlot::mousePressEvent(QMouseEvent* event) {
  const int i = pointAt(event->position());
  if (i < 0) return;
  setSelected(i);
  emit pointChosen(i);
}

}  // namespace ps::ui
