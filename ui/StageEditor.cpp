#include "ui/StageEditor.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

#include "trace/Units.h"

namespace ps::ui {

StageEditor::StageEditor(QWidget* parent) : QWidget(parent) {
  setObjectName("stageEditor");
  setMinimumHeight(60);
  setMouseTracking(true);
}

void StageEditor::setModel(std::vector<double> layerNs, std::vector<int> boundaries) {
  layerNs_ = std::move(layerNs);
  boundaries_ = std::move(boundaries);
  dragging_ = -1;
  // A run without a layer table (e.g. imported) or with inconsistent stages shows no cut.
  for (std::size_t b = 0; b < boundaries_.size(); ++b)
    if (boundaries_[b] <= (b ? boundaries_[b - 1] : 0) ||
        boundaries_[b] >= static_cast<int>(layerNs_.size())) {
      boundaries_.clear();
      break;
    }
  // Stage totals also live in the tooltip, for when the bar is too narrow for them.
  QStringList lines;
  std::vector<int> cuts = {0};
  cuts.insert(cuts.end(), boundaries_.begin(), boundaries_.end());
  cuts.push_back(static_cast<int>(layerNs_.size()));
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
    double total = 0;
    for (int l = cuts[s]; l < cuts[s + 1]; ++l)
      total += layerNs_[l];
    lines << QString("stage %1: layers %2–%3, %4")
                 .arg(s)
                 .arg(cuts[s])
                 .arg(cuts[s + 1] - 1)
                 .arg(QString::fromStdString(
                     trace::formatDuration(static_cast<std::int64_t>(total))));
  }
  setToolTip(lines.join('\n'));
  update();
}

double StageEditor::layerWidth() const {
  return layerNs_.empty() ? 1.0 : static_cast<double>(barRight() - barLeft()) / layerNs_.size();
}

int StageEditor::handleX(int b) const {
  return barLeft() + static_cast<int>(boundaries_[b] * layerWidth());
}

int StageEditor::layerAtX(int x) const {
  return std::clamp(static_cast<int>((x - barLeft()) / layerWidth() + 0.5), 0,
                    static_cast<int>(layerNs_.size()));
}

void StageEditor::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  if (layerNs_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, "no layers");
    return;
  }
  const double lw = layerWidth();
  const double maxNs = *std::max_element(layerNs_.begin(), layerNs_.end());
  const int top = 22, h = height() - top - 6;
  // Layers: darker = more expensive.
  for (std::size_t l = 0; l < layerNs_.size(); ++l) {
    const double f = maxNs > 0 ? layerNs_[l] / maxNs : 0.0;
    QColor c = QColor::fromHsvF(0.58, 0.25 + 0.6 * f, 0.95 - 0.35 * f);
    p.fillRect(QRectF(barLeft() + l * lw, top, lw - 1, h), c);
  }
  // Stages: totals and handles.
  std::vector<int> cuts = {0};
  cuts.insert(cuts.end(), boundaries_.begin(), boundaries_.end());
  cuts.push_back(static_cast<int>(layerNs_.size()));
  p.setPen(palette().color(QPalette::WindowText));
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
    double total = 0;
    for (int l = cuts[s]; l < cuts[s + 1]; ++l)
      total += layerNs_[l];
    const QRectF area(barLeft() + cuts[s] * lw, 0, (cuts[s + 1] - cuts[s]) * lw, top);
    const QString full = QString("S%1 %2").arg(s).arg(
        QString::fromStdString(trace::formatDuration(static_cast<std::int64_t>(total))));
    const QString text =
        fontMetrics().horizontalAdvance(full) + 4 <= area.width() ? full : QString("S%1").arg(s);
    p.drawText(area, Qt::AlignCenter, text);
  }
  for (std::size_t b = 0; b < boundaries_.size(); ++b) {
    const int x = handleX(static_cast<int>(b));
    p.fillRect(QRect(x - 2, top - 4, 4, h + 8),
               static_cast<int>(b) == dragging_ ? QColor(0xD5, 0x5E, 0x00) : Qt::black);
  }
}

void StageEditor::mousePressEvent(QMouseEvent* e) {
  for (std::size_t b = 0; b < boundaries_.size(); ++b)
    if (std::abs(e->pos().x() - handleX(static_cast<int>(b))) <= 6) dragging_ = static_cast<int>(b);
  update();
}

void StageEditor::mouseMoveEvent(QMouseEvent* e) {
  if (dragging_ < 0) {
    bool near = false;
    for (std::size_t b = 0; b < boundaries_.size(); ++b)
      near |= std::abs(e->pos().x() - handleX(static_cast<int>(b))) <= 6;
    setCursor(near ? Qt::SplitHCursor : Qt::ArrowCursor);
    return;
  }
  // Snap to a layer, keeping every stage at least one layer wide.
  const int lo = dragging_ == 0 ? 1 : boundaries_[dragging_ - 1] + 1;
  const int hi = dragging_ + 1 < static_cast<int>(boundaries_.size())
                     ? boundaries_[dragging_ + 1] - 1
                     : static_cast<int>(layerNs_.size()) - 1;
  boundaries_[dragging_] = std::clamp(layerAtX(e->pos().x()), lo, hi);
  update();
}

void StageEditor::mouseReleaseEvent(QMouseEvent*) {
  if (dragging_ < 0) return;
  dragging_ = -1;
  QStringList parts;
  for (int b : boundaries_)
    parts << QString::number(b);
  update();
  emit boundariesChanged(parts.join(','));
}

}  // namespace ps::ui
