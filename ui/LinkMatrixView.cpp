#include "ui/LinkMatrixView.h"

#include <QPainter>

#include <algorithm>

#include "trace/Units.h"
#include "ui/ToolTipEvent.h"

namespace ps::ui {
namespace {
constexpr int kMinGutter = 28;  // row / column rank labels: two digits

// Secondary text: between the text and its background, readable on both palettes (a palette
// set by hand often leaves PlaceholderText at the light palette's grey, invisible on dark).
QColor faintText(const QPalette& p) {
  const QColor fg = p.color(QPalette::Text), bg = p.color(QPalette::Base);
  return QColor((fg.red() * 3 + bg.red() * 2) / 5, (fg.green() * 3 + bg.green() * 2) / 5,
                (fg.blue() * 3 + bg.blue() * 2) / 5);
}

QString bytesText(std::int64_t b) {
  return QString::fromStdString(trace::formatBytes(b));
}

std::uint64_t pairKey(int src, int dst) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
         static_cast<std::uint32_t>(dst);
}
}  // namespace

LinkMatrixView::LinkMatrixView(QWidget* parent) : QWidget(parent) {
  setObjectName("linkMatrix");
  setMouseTracking(true);
  setMinimumSize(160, 120);
}

void LinkMatrixView::setLinks(std::vector<trace::LinkSummary> links, int ranks,
                              std::int64_t spanNs) {
  links_ = std::move(links);
  byPair_.clear();
  for (std::size_t i = 0; i < links_.size(); ++i)
    byPair_.emplace(pairKey(links_[i].src, links_[i].dst), i);  // the first of duplicates wins
  ranks_ = ranks;
  spanNs_ = spanNs;
  update();
}

int LinkMatrixView::gutter() const {
  return std::max(kMinGutter,
                  fontMetrics().horizontalAdvance(QString::number(std::max(0, ranks_ - 1))) + 10);
}

QRect LinkMatrixView::cellRect(int src, int dst) const {
  const int n = std::max(ranks_, 1), g = gutter();
  const int side = std::max(1, std::min((width() - g) / n, (height() - g) / n));
  return {g + dst * side, g + src * side, side, side};
}

int LinkMatrixView::labelStep() const {
  // Labels k cells apart need k cells to hold a line (rows) and the widest number (columns).
  const int side = cellRect(0, 0).width();
  const int need = std::max(fontMetrics().height(),
                            fontMetrics().horizontalAdvance(QString::number(ranks_ - 1)) + 4);
  int k = 1;
  while (k * side < need && k < ranks_)
    k *= 2;
  return k;
}

QRect LinkMatrixView::rowLabelRect(int rank) const {
  const QRect row = cellRect(rank, 0);
  const int fh = fontMetrics().height();
  return {0, row.center().y() - fh / 2, gutter() - 4, fh};
}

QRect LinkMatrixView::columnLabelRect(int rank) const {
  const QRect col = cellRect(0, rank);
  const int tw = fontMetrics().horizontalAdvance(QString::number(rank));
  const int fh = fontMetrics().height();
  return {col.left() + col.width() / 2 - tw / 2, gutter() - 4 - fh, tw, fh};
}

std::pair<int, int> LinkMatrixView::cellAt(QPoint pos) const {
  const QRect first = cellRect(0, 0);
  const int side = first.width(), g = gutter();
  if (ranks_ <= 0 || pos.x() < g || pos.y() < g) return {-1, -1};
  const int s = (pos.y() - g) / side, d = (pos.x() - g) / side;
  if (s >= ranks_ || d >= ranks_) return {-1, -1};
  return {s, d};
}

const trace::LinkSummary* LinkMatrixView::link(int src, int dst) const {
  const auto it = byPair_.find(pairKey(src, dst));
  return it == byPair_.end() ? nullptr : &links_[it->second];
}

int LinkMatrixView::visibleCells() const {
  const int side = cellRect(0, 0).width(), g = gutter();
  const int fit = std::max(0, std::max(width(), height()) - g) / side + 1;
  return std::min(ranks_, fit);
}

void LinkMatrixView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  drawnCells_ = 0;
  if (ranks_ <= 0) {
    p.setPen(faintText(palette()));
    p.drawText(rect(), Qt::AlignCenter, "no links");
    return;
  }
  std::int64_t maxBytes = 1;
  for (const auto& l : links_)
    maxBytes = std::max(maxBytes, l.bytes);
  const QColor hot(0x00, 0x72, 0xb2);  // Okabe–Ito blue, as the send/recv lanes
  const QColor text = palette().color(QPalette::Text);
  p.setPen(text);
  // Thinned labels (every k-th rank), with a tick at each labelled row and column.
  const int step = labelStep(), g = gutter();
  const QColor tick = palette().color(QPalette::Mid);
  // Only rows and columns on screen: the loops are bounded by pixels, not by ranks squared.
  const int shown = visibleCells();
  for (int r = 0; r < shown; r += step) {
    const QRect row = cellRect(r, 0), col = cellRect(0, r);
    p.drawText(rowLabelRect(r), Qt::AlignRight | Qt::AlignVCenter, QString::number(r));
    p.drawText(columnLabelRect(r), Qt::AlignCenter, QString::number(r));
    if (step > 1) {
      p.fillRect(QRect(g - 3, row.top() + row.height() / 2, 3, 1), tick);
      p.fillRect(QRect(col.left() + col.width() / 2, g - 3, 1, 3), tick);
    }
  }
  if (shown > 64) {
    // Cells a few pixels wide, too small for figures: one fill for the grid, then one per link
    // that carried bytes.
    p.fillRect(cellRect(0, 0).united(cellRect(shown - 1, shown - 1)).intersected(rect()),
               palette().color(QPalette::AlternateBase));
    for (const auto& l : links_) {
      if (l.src < 0 || l.dst < 0 || l.src >= shown || l.dst >= shown || l.bytes <= 0) continue;
      QColor fill = hot;
      fill.setAlphaF(0.3 + 0.7 * static_cast<double>(l.bytes) / static_cast<double>(maxBytes));
      p.fillRect(cellRect(l.src, l.dst), fill);
      ++drawnCells_;
    }
    return;
  }
  for (int s = 0; s < shown; ++s)
    for (int d = 0; d < shown; ++d) {
      const QRect cell = cellRect(s, d).adjusted(0, 0, -1, -1);
      ++drawnCells_;
      const trace::LinkSummary* l = link(s, d);
      QColor fill = palette().color(QPalette::AlternateBase);
      if (l && l->bytes > 0) {
        const double share = static_cast<double>(l->bytes) / static_cast<double>(maxBytes);
        fill = hot;
        fill.setAlphaF(0.3 + 0.7 * share);  // the lightest still shows on a dark base
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

QString LinkMatrixView::toolTipAt(QPoint pos) const {
  if (ranks_ <= 0) return {};
  const auto [s, d] = cellAt(pos);
  if (s >= 0) {
    const trace::LinkSummary* l = link(s, d);
    if (!l || l->bytes <= 0) return QString("rank %1 → rank %2: nothing sent").arg(s).arg(d);
    const double seconds = static_cast<double>(l->busy_ns) * 1e-9;
    const double gbps = seconds > 0 ? static_cast<double>(l->bytes) * 8e-9 / seconds : 0.0;
    const double busy =
        spanNs_ > 0 ? 100.0 * static_cast<double>(l->busy_ns) / static_cast<double>(spanNs_) : 0.0;
    return QString("rank %1 → rank %2\n%3 in %4 sends\nbusy %5 (%6 % of the run), %7 Gb/s achieved")
        .arg(s)
        .arg(d)
        .arg(bytesText(l->bytes))
        .arg(l->ops)
        .arg(QString::fromStdString(trace::formatDuration(l->busy_ns)))
        .arg(busy, 0, 'f', 1)
        .arg(gbps, 0, 'f', 2);
  }
  // Over a label column or row: that rank's totals as sender (row) or receiver (column).
  const int g = gutter();
  const QRect grid = cellRect(0, 0).united(cellRect(ranks_ - 1, ranks_ - 1));
  const bool row = pos.x() < g && pos.y() >= grid.top() && pos.y() <= grid.bottom();
  const bool col = pos.y() < g && pos.x() >= grid.left() && pos.x() <= grid.right();
  if (!row && !col) return {};
  const int side = grid.width() / ranks_;
  const int r = std::clamp(((row ? pos.y() : pos.x()) - g) / std::max(side, 1), 0, ranks_ - 1);
  std::int64_t bytes = 0;
  for (const auto& l : links_)
    if ((row ? l.src : l.dst) == r) bytes += l.bytes;
  return QString("rank %1 %2 %3 in total")
      .arg(r)
      .arg(row ? "sends" : "receives")
      .arg(bytesText(bytes));
}

bool LinkMatrixView::event(QEvent* event) {
  if (showPositionalToolTip(this, event, [this](QPoint at) { return toolTipAt(at); })) return true;
  return QWidget::event(event);
}

}  // namespace ps::ui
