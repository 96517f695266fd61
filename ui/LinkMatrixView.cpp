#include "ui/LinkMatrixView.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

#include "trace/Units.h"

namespace ps::ui {
namespace {
constexpr int kGutter = 28;  // row / column rank labels
}

LinkMatrixView::LinkMatrixView(QWidget* parent) : QWidget(parent) {
  setObjectName("linkMatrix");
  setMouseTracking(true);
  setMinimumSize(160, 120);
}

void LinkMatrixView::setLinks(std::vector<trace::LinkSummary> links, int ranks,
                              std::int64_t spanNs) {
  links_ = std::move(links);
  ranks_ = ranks;
  spanNs_ = spanNs;
  update();
}

QRect LinkMatrixView::cellRect(int src, int dst) const {
  const int n = std::max(ranks_, 1);
  const int side = std::max(1, std::min((width() - kGutter) / n, (height() - kGutter) / n));
  return {kGutter + dst * side, kGutter + src * side, side, side};
}

std::pair<int, int> LinkMatrixView::cellAt(QPoint pos) const {
  for (int s = 0; s < ranks_; ++s)
    for (int d = 0; d < ranks_; ++d)
      if (cellRect(s, d).contains(pos)) return {s, d};
  return {-1, -1};
}

const trace::LinkSummary* LinkMatrixView::link(int src, int dst) const {
  for (const auto& l : links_)
    if (l.src == src && l.dst == dst) return &l;
  return nullptr;
}

void LinkMatrixView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (ranks_ <= 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, "no links");
    return;
  }
  std::int64_t maxBytes = 1;
  for (const auto& l : links_)
    maxBytes = std::max(maxBytes, l.bytes);
  const QColor hot(0x00, 0x72, 0xb2);  // Okabe–Ito blue, as the send/recv lanes
  const QColor text = palette().color(QPalette::Text);
  p.setPen(text);
  for (int r = 0; r < ranks_; ++r) {
    const QRect row = cellRect(r, 0), col = cellRect(0, r);
    p.drawText(QRect(0, row.top(), kGutter - 4, row.height()), Qt::AlignRight | Qt::AlignVCenter,
               QString::number(r));
    p.drawText(QRect(col.left(), 0, col.width(), kGutter - 4), Qt::AlignCenter | Qt::AlignBottom,
               QString::number(r));
  }
  for (int s = 0; s < ranks_; ++s)
    for (int d = 0; d < ranks_; ++d) {
      const QRect cell = cellRect(s, d).adjusted(0, 0, -1, -1);
      const trace::LinkSummary* l = link(s, d);
      QColor fill = palette().color(QPalette::AlternateBase);
      if (l && l->bytes > 0) {
        const double share = static_cast<double>(l->bytes) / static_cast<double>(maxBytes);
        fill = hot;
        fill.setAlphaF(0.15 + 0.85 * share);
      }
      p.fillRect(cell, fill);
      if (l && cell.width() >= 44 && cell.height() >= 28) {
        p.setPen(text);
        const double busy =
            spanNs_ > 0 ? 100.0 * static_cast<double>(l->busy_ns) / static_cast<double>(spanNs_)
                        : 0.0;
        p.drawText(cell, Qt::AlignCenter,
                   QString::fromStdString(trace::formatBytes(l->bytes)) + "\n" +
                       QString::number(busy, 'f', 1) + " %");
      }
    }
}

bool LinkMatrixView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const auto [s, d] = cellAt(help->pos());
    const trace::LinkSummary* l = s >= 0 ? link(s, d) : nullptr;
    if (!l) {
      QToolTip::hideText();
      return true;
    }
    const double seconds = static_cast<double>(l->busy_ns) * 1e-9;
    const double gbps = seconds > 0 ? static_cast<double>(l->bytes) * 8e-9 / seconds : 0.0;
    QToolTip::showText(help->globalPos(),
                       QString("rank %1 → rank %2\n%3 in %4 sends\nbusy %5, %6 Gb/s achieved")
                           .arg(s)
                           .arg(d)
                           .arg(QString::fromStdString(trace::formatBytes(l->bytes)))
                           .arg(l->ops)
                           .arg(QString::fromStdString(trace::formatDuration(l->busy_ns)))
                           .arg(gbps, 0, 'f', 2),
                       this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace ps::ui
