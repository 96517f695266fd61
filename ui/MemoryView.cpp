#include "ui/MemoryView.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <climits>

#include "trace/Units.h"
#include "trace/analysis/LaneQuery.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

constexpr int kRightMargin = 8;  // as the timeline's: the plots share one time axis

// Secondary text: between the text and its background, readable on both palettes (a palette
// set by hand often leaves PlaceholderText at the light palette's grey, invisible on dark).
QColor faintText(const QPalette& p) {
  const QColor fg = p.color(QPalette::Text), bg = p.color(QPalette::Base);
  return QColor((fg.red() * 3 + bg.red() * 2) / 5, (fg.green() * 3 + bg.green() * 2) / 5,
                (fg.blue() * 3 + bg.blue() * 2) / 5);
}

QColor rankColour(int rank) {
  static const QColor colours[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                   QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                   QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9)};
  return colours[rank % 6];
}

QString bytesText(std::int64_t b) {
  return QString::fromStdString(trace::formatBytes(b));
}

}  // namespace

MemoryReadout memoryReadout(const trace::RunTrace& run, int rank, std::int64_t t) {
  MemoryReadout out;
  if (rank < 0 || rank >= static_cast<int>(run.ranks.size())) return out;
  const auto& r = run.ranks[rank];
  out.rank = rank;
  out.t = t;
  out.capacity = r.info.memory_capacity_bytes;
  for (auto b : r.memory.bytes)
    out.peak = std::max(out.peak, b);
  const auto& ts = r.memory.t;
  const auto it = std::upper_bound(ts.begin(), ts.end(), t);
  if (it != ts.begin()) out.bytes = r.memory.bytes[static_cast<std::size_t>(it - ts.begin()) - 1];
  return out;
}

QString memoryReadoutText(const MemoryReadout& m) {
  if (m.rank < 0) return {};
  QString text = QString("rank %1 · %2 · ")
                     .arg(m.rank)
                     .arg(QString::fromStdString(trace::formatDuration(m.t)));
  text += m.bytes ? bytesText(*m.bytes) + " in use" : QString("no sample yet");
  text += " · peak " + bytesText(m.peak);
  if (m.capacity && *m.capacity > 0) text += " of " + bytesText(*m.capacity);
  return text;
}

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
  setObjectName("memoryView");
  setMinimumHeight(60);  // the header and a track: a comparison takes the rest
  setMouseTracking(true);
  // A thin bar in the plot's right margin: a full-width one would shift this plot's time axis
  // away from the timeline's above it. Square ends: no blended pixels at any device ratio.
  bar_ = new QScrollBar(Qt::Vertical, this);
  bar_->setObjectName("memoryScrollBar");
  styleScrollBar();
  bar_->hide();
  connect(bar_, &QScrollBar::valueChanged, this, &MemoryView::setScroll);
}

void MemoryView::styleScrollBar() {
  // The thumb in the secondary text colour: palette(mid) vanished on a hand-made dark palette.
  bar_->setStyleSheet(
      QString("QScrollBar:vertical{width:8px;background:transparent;margin:0;border:none}"
              "QScrollBar::handle:vertical{background:%1;min-height:16px;margin:0 1px}"
              "QScrollBar::add-line:vertical,QScrollBar::sub-line:vertical{height:0;border:none}"
              "QScrollBar::add-page:vertical,QScrollBar::sub-page:vertical{background:none}")
          .arg(faintText(palette()).name()));
}

void MemoryView::changeEvent(QEvent* e) {
  if (e->type() == QEvent::PaletteChange) styleScrollBar();
  QWidget::changeEvent(e);
}

void MemoryView::setRun(std::shared_ptr<const trace::RunTrace> run) {
  run_ = std::move(run);
  scale_ = 1;
  peaks_.clear();
  largestPeak_ = 0;
  hasSamples_ = false;
  if (run_) {
    peaks_.reserve(run_->ranks.size());
    for (const auto& r : run_->ranks) {
      std::int64_t peak = 0;
      for (auto b : r.memory.bytes)
        peak = std::max(peak, b);
      peaks_.push_back(peak);
      largestPeak_ = std::max(largestPeak_, peak);
      hasSamples_ = hasSamples_ || r.memory.size() > 0;
      // The largest peak, not an eighth of the capacity as before: an H200 run's 216 MiB drew
      // as a flat line under a 17.48 GiB scale. The gutter bar shows the peak against capacity.
      scale_ = std::max(scale_, peak);
    }
  }
  hover_.reset();
  hoverText_.clear();
  updateScrollBar();
  update();
}

double MemoryView::peakShare(int rank) const {
  if (!run_ || rank < 0 || rank >= static_cast<int>(run_->ranks.size())) return 0.0;
  const std::int64_t peak = peaks_[rank];
  // Against the rank's capacity when known, else against the largest peak of the run.
  std::int64_t reference = run_->ranks[rank].info.memory_capacity_bytes.value_or(0);
  if (reference <= 0) reference = largestPeak_;
  return reference > 0 ? static_cast<double>(peak) / static_cast<double>(reference) : 0.0;
}

void MemoryView::setVisibleRange(TimeRange range) {
  range_ = range;
  if (hover_) hoverText_ = memoryReadoutText(readoutAt(*hover_).value_or(MemoryReadout{}));
  update();
}

int MemoryView::plotWidth() const {
  return std::max(1, width() - TimelineView::kGutter - kRightMargin);
}

bool MemoryView::hasSamples() const {
  return run_ && hasSamples_;
}

QString MemoryView::note() const {
  if (run_ && !run_->ranks.empty() && !hasSamples()) return "no memory samples in this run";
  // Samples without sizes (a plan without activation or weight bytes): a "scale 1 B" over flat
  // lines said nothing.
  if (hasSamples() && largestPeak_ <= 0) return "no memory sizes in this run (every sample is 0 B)";
  return {};
}

int MemoryView::trackHeight() const {
  const int ranks = run_ ? static_cast<int>(run_->ranks.size()) : 0;
  // One line of text and its padding: below that the labels collide with each other.
  const int minimum = fontMetrics().height() + 8;
  if (ranks <= 0) return minimum;
  return std::max(minimum, (height() - kHeader) / ranks);
}

int MemoryView::maxScroll() const {
  // A note instead of tracks (no samples, no sizes): nothing to scroll.
  const std::int64_t ranks =
      note().isEmpty() && run_ ? static_cast<std::int64_t>(run_->ranks.size()) : 0;
  // In 64 bits: millions of tracks of a lying file must not wrap the scroll range.
  const std::int64_t over = ranks * trackHeight() - (height() - kHeader);
  return static_cast<int>(std::clamp<std::int64_t>(over, 0, INT_MAX));
}

void MemoryView::scrollTo(int offset) {
  bar_->setValue(std::clamp(offset, 0, maxScroll()));
  setScroll(bar_->value());
}

void MemoryView::setScroll(int offset) {
  if (offset == scroll_) return;
  scroll_ = offset;
  // The pointer stays where it is while the tracks move under it: its readout names the rank
  // now under it, not the one it was over.
  if (hover_) hoverText_ = memoryReadoutText(readoutAt(*hover_).value_or(MemoryReadout{}));
  update();
}

void MemoryView::showRanksFrom(int rank) {
  const std::int64_t top = static_cast<std::int64_t>(std::max(0, rank)) * trackHeight();
  scrollTo(static_cast<int>(std::clamp<std::int64_t>(top, 0, INT_MAX)));
}

void MemoryView::ensureRankVisible(int rank) {
  const std::int64_t top = static_cast<std::int64_t>(rank) * trackHeight();
  const int view = height() - kHeader;
  const auto clamped = [](std::int64_t v) {
    return static_cast<int>(std::clamp<std::int64_t>(v, 0, INT_MAX));
  };
  if (top < scroll_)
    scrollTo(clamped(top));
  else if (top + trackHeight() > scroll_ + view)
    scrollTo(clamped(top + trackHeight() - view));
}

void MemoryView::updateScrollBar() {
  const int most = maxScroll();
  bar_->setGeometry(width() - kRightMargin, kHeader, kRightMargin, std::max(0, height() - kHeader));
  bar_->setRange(0, most);
  bar_->setPageStep(std::max(1, height() - kHeader));
  bar_->setSingleStep(trackHeight());
  bar_->setVisible(most > 0);
  scroll_ = bar_->value();
}

void MemoryView::resizeEvent(QResizeEvent*) {
  updateScrollBar();
}

void MemoryView::wheelEvent(QWheelEvent* e) {
  // Plain wheel scrolls the tracks; ctrl+wheel (zoom on the timeline) is not ours to take.
  if (maxScroll() == 0 || (e->modifiers() & Qt::ControlModifier)) {
    e->ignore();
    return;
  }
  scrollTo(scroll_ - e->angleDelta().y() * trackHeight() / 120);
  e->accept();
}

QRect MemoryView::labelRect(int rank) const {
  const int fh = fontMetrics().height(), track = trackHeight(), top = trackTop(rank);
  const int gutter = TimelineView::kGutter;
  if (track >= 2 * fh + 8) return {6, top + 2, gutter - 12, fh};
  // One line: the label, then the bar beside it; every label as wide as the widest.
  const int ranks = run_ ? static_cast<int>(run_->ranks.size()) : 1;
  const QString widest = QString("rank %1").arg(std::max(0, ranks - 1));
  const int w = std::min(gutter - 30, fontMetrics().horizontalAdvance(widest) + 2);
  return {6, top + (track - fh) / 2, w, fh};
}

QRect MemoryView::peakBarRect(int rank) const {
  const int fh = fontMetrics().height(), track = trackHeight(), top = trackTop(rank);
  const int gutter = TimelineView::kGutter;
  const QRect label = labelRect(rank);
  if (track >= 2 * fh + 8)
    return {6, label.bottom() + 3, gutter - 16, std::clamp(track - fh - 10, 3, 10)};
  const int left = label.right() + 7;
  return {left, top + (track - 6) / 2, std::max(4, gutter - 10 - left), 6};
}

int MemoryView::rankAt(QPoint pos) const {
  if (!run_ || !note().isEmpty() || pos.y() < kHeader) return -1;
  const int r = (pos.y() - kHeader + scroll_) / trackHeight();
  return r >= 0 && r < static_cast<int>(run_->ranks.size()) ? r : -1;
}

std::optional<MemoryReadout> MemoryView::readoutAt(QPoint pos) const {
  const int rank = rankAt(pos);
  const int x = pos.x() - TimelineView::kGutter;
  if (rank < 0 || x < 0 || x >= plotWidth()) return std::nullopt;
  return memoryReadout(*run_, rank, pxToTime(range_, plotWidth(), x));
}

void MemoryView::mouseMoveEvent(QMouseEvent* e) {
  hover_ = e->pos();
  hoverText_ = memoryReadoutText(readoutAt(*hover_).value_or(MemoryReadout{}));
  update();
}

void MemoryView::leaveEvent(QEvent*) {
  hover_.reset();
  hoverText_.clear();
  update();
}

bool MemoryView::event(QEvent* event) {
  // The gutter explains its bar; over the plot the readout is painted under the pointer.
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int rank = rankAt(help->pos());
    if (rank < 0 || help->pos().x() >= TimelineView::kGutter) {
      QToolTip::hideText();
      return true;
    }
    const MemoryReadout m = memoryReadout(*run_, rank, 0);
    QString text = QString("rank %1: peak %2").arg(rank).arg(bytesText(m.peak));
    if (m.capacity && *m.capacity > 0)
      text += QString(" of %1 (%2 %)")
                  .arg(bytesText(*m.capacity))
                  .arg(100.0 * static_cast<double>(m.peak) / static_cast<double>(*m.capacity), 0,
                       'f', 1);
    else
      text += " (no capacity known: bar against the run's largest peak)";
    QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

void MemoryView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  drawnColumns_ = 0;
  if (!run_ || run_->ranks.empty()) return;
  if (const QString n = note(); !n.isEmpty()) {
    // An imported trace without memory events: a scale with nothing under it read as "zero".
    p.setPen(faintText(palette()));
    p.drawText(rect(), Qt::AlignCenter, n);
    return;
  }
  p.setPen(palette().color(QPalette::WindowText));
  const QString title = QString("memory in use per rank (scale %1)%2")
                            .arg(bytesText(scale_))
                            .arg(maxScroll() > 0 ? " · wheel scrolls" : "");
  p.drawText(QRect(4, 0, width() - 8, kHeader), Qt::AlignLeft | Qt::AlignVCenter,
             fontMetrics().elidedText(title, Qt::ElideRight, width() - 8));
  p.setClipRect(QRect(0, kHeader, width(), height() - kHeader));
  const int track = trackHeight();
  const int first = std::max(0, scroll_ / track);
  const int last =
      std::min(static_cast<int>(run_->ranks.size()) - 1, (scroll_ + height() - kHeader) / track);
  for (int r = first; r <= last; ++r)
    paintTrack(p, r);
  paintHover(p);
}

void MemoryView::paintTrack(QPainter& p, int r) {
  const int gutter = TimelineView::kGutter, plotW = plotWidth();
  const int track = trackHeight(), top = trackTop(r), bottom = top + track - 3;
  // Alternate shading tells 64 thin tracks apart, as the timeline's rows do.
  if (r % 2) p.fillRect(QRect(0, top, width(), track), palette().color(QPalette::AlternateBase));
  const QColor c = rankColour(r);
  const QRect label = labelRect(r);
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter,
             fontMetrics().elidedText(QString("rank %1").arg(r), Qt::ElideRight, label.width()));
  // Peak-against-capacity bar in the gutter (the plot keeps the timeline's time axis).
  const QRect bar = peakBarRect(r);
  p.fillRect(bar, palette().color(r % 2 ? QPalette::Base : QPalette::AlternateBase));
  const double share = peakShare(r);
  p.fillRect(QRect(bar.left(), bar.top(), static_cast<int>(std::min(share, 1.0) * bar.width()),
                   bar.height()),
             share > 1.0 ? QColor(0xD5, 0x2A, 0x2A) : c);

  const auto& series = run_->ranks[r].memory;
  if (series.size() == 0) {
    p.setPen(faintText(palette()));
    p.drawText(QRect(gutter + 4, top, plotW - 4, track), Qt::AlignLeft | Qt::AlignVCenter,
               "no samples");
    return;
  }
  const auto cols = trace::queryMemory(series, range_.start, range_.end, plotW);
  QColor fill = c;
  fill.setAlpha(110);
  const int plotH = std::max(2, track - 5);
  const auto y = [&](std::int64_t b) {
    return bottom - static_cast<int>(static_cast<double>(b) / static_cast<double>(scale_) * plotH);
  };
  for (int x = 0; x < plotW; ++x) {
    if (!cols[x].valid) continue;
    ++drawnColumns_;
    // Filled to the column's minimum, with the min..max spread in the full colour on top.
    p.fillRect(QRect(gutter + x, y(cols[x].minBytes), 1, bottom - y(cols[x].minBytes)), fill);
    p.fillRect(
        QRect(gutter + x, y(cols[x].maxBytes), 1, y(cols[x].minBytes) - y(cols[x].maxBytes) + 1),
        c);
  }
}

void MemoryView::paintHover(QPainter& p) {
  if (!hover_ || hoverText_.isEmpty()) return;
  const int r = rankAt(*hover_);
  if (r < 0) return;
  const int track = trackHeight(), top = trackTop(r), x = hover_->x();
  const QColor fg = palette().color(QPalette::WindowText);
  p.fillRect(QRect(x, top, 1, track), fg);
  if (const auto m = readoutAt(*hover_); m && m->bytes) {
    const int plotH = std::max(2, track - 5), bottom = top + track - 3;
    const int vy = bottom - static_cast<int>(static_cast<double>(*m->bytes) /
                                             static_cast<double>(scale_) * plotH);
    p.fillRect(QRect(x - 2, vy - 2, 5, 5), fg);
  }
  // The readout beside the pointer, flipped to its left near the right edge.
  const int w = fontMetrics().horizontalAdvance(hoverText_) + 10, h = fontMetrics().height() + 4;
  int left = x + 10;
  if (left + w > width() - 2) left = std::max(2, x - 10 - w);
  const QRect box(left, std::max(kHeader, top + (track - h) / 2), w, h);
  p.fillRect(box, palette().color(QPalette::ToolTipBase));
  p.setPen(palette().color(QPalette::ToolTipText));
  p.drawRect(box.adjusted(0, 0, -1, -1));
  p.drawText(box, Qt::AlignCenter, hoverText_);
}

}  // namespace ps::ui
