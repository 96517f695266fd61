#include "ui/MemoryView.h"

#include <QPainter>

#include "trace/Units.h"
#include "trace/analysis/LaneQuery.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
  setObjectName("memoryView");
  setMinimumHeight(90);
}

void MemoryView::setRun(std::shared_ptr<const trace::RunTrace> run) {
  run_ = std::move(run);
  scale_ = 1;
  if (run_)
    for (const auto& r : run_->ranks) {
      for (auto b : r.memory.bytes)
        scale_ = std::max(scale_, b);
      if (r.info.memory_capacity_bytes)
        scale_ = std::max(scale_, *r.info.memory_capacity_bytes / 8);
    }
  update();
}

double MemoryView::peakShare(int rank) const {
  if (!run_ || rank < 0 || rank >= static_cast<int>(run_->ranks.size())) return 0.0;
  const auto& r = run_->ranks[rank];
  std::int64_t peak = 0;
  for (auto b : r.memory.bytes)
    peak = std::max(peak, b);
  // Against the rank's capacity when known, else against the largest peak of the run.
  std::int64_t reference = r.info.memory_capacity_bytes.value_or(0);
  if (reference <= 0)
    for (const auto& other : run_->ranks)
      for (auto b : other.memory.bytes)
        reference = std::max(reference, b);
  return reference > 0 ? static_cast<double>(peak) / static_cast<double>(reference) : 0.0;
}

void MemoryView::setVisibleRange(TimeRange range) {
  range_ = range;
  update();
}

void MemoryView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  drawnColumns_ = 0;
  const int gutter = TimelineView::kGutter;
  const int plotW = std::max(1, width() - gutter - 8);
  if (!run_ || run_->ranks.empty()) return;
  const int ranks = static_cast<int>(run_->ranks.size());
  const int band = std::max(12, (height() - 18) / ranks);
  static const QColor colours[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                   QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                   QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9)};
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(
      QRect(4, 0, width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
      QString("memory in use (scale %1)").arg(QString::fromStdString(trace::formatBytes(scale_))));
  for (int r = 0; r < ranks; ++r) {
    const int top = 18 + r * band, bottom = top + band - 3;
    const auto cols = trace::queryMemory(run_->ranks[r].memory, range_.start, range_.end, plotW);
    const QColor c = colours[r % 6];
    p.setPen(palette().color(QPalette::WindowText));
    const bool roomy = band >= 30;
    p.drawText(QRect(6, top, gutter - 10, roomy ? band / 2 : band),
               Qt::AlignLeft | Qt::AlignVCenter, QString("rank %1").arg(r));
    // Peak-against-capacity bar in the gutter (the plot keeps the timeline's time axis).
    const QRect bar(6, roomy ? top + band / 2 : bottom - 3, gutter - 16,
                    roomy ? std::min(10, band / 2 - 4) : 3);
    p.fillRect(bar, palette().color(QPalette::AlternateBase));
    const double share = peakShare(r);
    const bool over = share > 1.0;
    p.fillRect(QRect(bar.left(), bar.top(), static_cast<int>(std::min(share, 1.0) * bar.width()),
                     bar.height()),
               over ? QColor(0xD5, 0x2A, 0x2A) : colours[r % 6]);

    QColor fill = c;
    fill.setAlpha(110);
    for (int x = 0; x < plotW; ++x) {
      if (!cols[x].valid) continue;
      ++drawnColumns_;
      const auto y = [&](std::int64_t b) {
        return bottom -
               static_cast<int>(static_cast<double>(b) / static_cast<double>(scale_) * (band - 4));
      };
      // Filled to the column's minimum, with the min..max spread in the full colour on top.
      p.fillRect(QRect(gutter + x, y(cols[x].minBytes), 1, bottom - y(cols[x].minBytes)), fill);
      p.fillRect(
          QRect(gutter + x, y(cols[x].maxBytes), 1, y(cols[x].minBytes) - y(cols[x].maxBytes) + 1),
          c);
    }
  }
}

}  // namespace ps::ui
