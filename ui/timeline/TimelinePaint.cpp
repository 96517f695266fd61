// Painting the timeline from its cached geometry: the rank gutter and the plain strips from
// device-resolution caches, the background pieces, the boxes (a shade per model chunk, a hatch on
// the second pipeline direction, dimmed outside a search), their labels, the axis; overlays on
// top (TimelineOverlays.cpp).

#include <QElapsedTimer>
#include <QHashFunctions>
#include <QPainter>

#include <algorithm>

#include "ui/timeline/KindPalette.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

using trace::Lane;

namespace {
// `fg` over `bg` at alpha/255, as an opaque colour: the grid drawn behind the boxes.
QColor blend(const QColor& bg, const QColor& fg, int alpha) {
  auto mix = [&](int b, int f) { return b + (f - b) * alpha / 255; };
  return QColor(mix(bg.red(), fg.red()), mix(bg.green(), fg.green()), mix(bg.blue(), fg.blue()));
}
constexpr int kShades = 4;  // chunk 0, 1, 2, 3 and more
}  // namespace

struct TimelineView::Colours {
  QColor ground[4];  // in Ground's order
  QColor kind[trace::kOpKindCount][kShades];
  QColor dim[trace::kOpKindCount];
  QColor text, hatch, highlight;
  const QColor& operator[](Ground g) const { return ground[static_cast<int>(g)]; }
  const QColor& operator[](trace::OpKind k) const { return kind[static_cast<int>(k)][0]; }
};

TimelineView::Colours TimelineView::colours() const {
  Colours c;
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const QColor base = palette().color(QPalette::Base), bubble = bubbleColor(dark);
  c.text = palette().color(QPalette::WindowText);
  c.highlight = palette().color(QPalette::Highlight);
  c.ground[static_cast<int>(Ground::Plain)] = base;
  c.ground[static_cast<int>(Ground::Shaded)] = bubble;
  c.ground[static_cast<int>(Ground::GridOnPlain)] = blend(base, c.text, 25);
  c.ground[static_cast<int>(Ground::GridOnShaded)] = blend(bubble, c.text, 25);
  for (int k = 0; k < trace::kOpKindCount; ++k) {
    const QColor kind = kindColor(static_cast<trace::OpKind>(k));
    // Later chunks lighter: chunk 1 of an interleaved rank reads as a sibling of chunk 0.
    for (int s = 0; s < kShades; ++s)
      c.kind[k][s] = blend(kind, Qt::white, s * 70);
    c.dim[k] = blend(base, kind, 60);
  }
  c.hatch = dark ? QColor(0, 0, 0, 150) : QColor(255, 255, 255, 170);
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

// The rank labels change only with the run, the font, the palette, the height and the tracks'
// layout and scroll position (not with the time range).
void TimelineView::paintGutter(QPainter& p, const Colours& c, int scale) {
  const QRect gutter(0, 0, kGutter, height());
  const QColor base = c[Ground::Plain];
  if (!scale) {
    p.fillRect(gutter, base);
    drawRankLabels(p);
    return;
  }
  const auto key = qHashMulti(0, run_->ranks.size(), font(), base.rgba(), c.text.rgba(),
                              layout_.generation(), offset_);
  gutterCache_.image(key, gutter.size(), scale, *this, [&](QPainter& cp) {
    cp.fillRect(gutter, base);
    cp.setFont(font());
    drawRankLabels(cp);
  });
  gutterCache_.blit(p, {0, 0}, gutter);
}

QString TimelineView::rankDevice(int rank) const {
  const auto& info = run_->ranks[rank].info;
  // The device says which GPU a rank is; a simulator's "sim" says nothing the title does not.
  if (!info.device || info.device->empty() || *info.device == run_->info.source) return {};
  return QString::fromStdString(*info.device);
}

QString TimelineView::rankTitle(int rank) const {
  const QString device = rankDevice(rank);
  return device.isEmpty() ? QString("rank %1").arg(rank)
                          : QString("rank %1 · %2").arg(rank).arg(device);
}

void TimelineView::drawRankLabels(QPainter& p) const {
  const QColor text = palette().color(QPalette::WindowText);
  QColor sub = text, faint = text;
  sub.setAlpha(120);
  faint.setAlpha(50);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.75);
  const QFontMetrics fm(font()), smallFm(small);
  int labelledTo = kAxis;  // collapsed tracks' labels thin out to those that fit
  for (const Track& t : tracks_) {
    p.save();
    p.setClipRect(QRect(0, t.clipTop, kGutter, t.clipBottom - t.clipTop));
    const int mid = t.computeTop + (t.collapsed ? t.computeHeight : t.rowHeight) / 2;
    // Disclosure mark: ▾ expanded, ▸ collapsed.
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(t.collapsed ? sub : text);
    const QPolygonF mark =
        t.collapsed ? QPolygonF({QPointF(5, mid - 4), QPointF(10, mid), QPointF(5, mid + 4)})
                    : QPolygonF({QPointF(4, mid - 2), QPointF(12, mid - 2), QPointF(8, mid + 3)});
    p.drawPolygon(mark);
    // Pin mark: a head and a needle, solid when pinned.
    const QColor pin = t.pinned ? text : faint;
    p.setBrush(pin);
    p.drawEllipse(QPointF(kGutter - 9, mid - 2), 3, 3);
    p.setPen(QPen(pin, 1.5));
    p.drawLine(QPointF(kGutter - 9, mid), QPointF(kGutter - 9, mid + 5));
    p.setRenderHint(QPainter::Antialiasing, false);
    const int textLeft = 15, textWidth = kGutter - textLeft - 15;
    if (t.collapsed) {
      const int top = mid - smallFm.height() / 2;
      if (top >= labelledTo) {
        p.setPen(sub);
        p.setFont(small);
        p.drawText(QRect(textLeft, top, textWidth, smallFm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   smallFm.elidedText(rankTitle(t.rank), Qt::ElideRight, textWidth));
        labelledTo = top + smallFm.height();
      }
    } else {
      // "rank 12 · GPU 3" when it fits, else the device goes to the second line, elided.
      const QString title = rankTitle(t.rank), device = rankDevice(t.rank);
      const bool fits = fm.horizontalAdvance(title) <= textWidth;
      p.setPen(text);
      p.setFont(font());
      p.drawText(
          QRect(textLeft, t.computeTop, textWidth, t.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
          fits ? title : fm.elidedText(QString("rank %1").arg(t.rank), Qt::ElideRight, textWidth));
      p.setPen(sub);
      p.setFont(small);
      const int subWidth = kGutter - textLeft - 4;
      p.drawText(QRect(textLeft, t.commTop, subWidth, 2 * kComm), Qt::AlignLeft | Qt::AlignVCenter,
                 fits || device.isEmpty() ? QString("send / recv")
                                          : smallFm.elidedText(device, Qt::ElideRight, subWidth));
      labelledTo = t.top + t.height;
    }
    p.restore();
  }
  p.setFont(font());
}

void TimelineView::paintBoxes(QPainter& p, const Colours& c) {
  const bool filtering = filtering_;
  bool anyHatch = false;
  for (const auto& b : boxes_) {
    if (b.drawn.isEmpty()) continue;
    const int k = static_cast<int>(b.kind);
    const QColor& colour =
        filtering && !highlighted(b) ? c.dim[k] : c.kind[k][std::min<int>(b.chunk, kShades - 1)];
    p.fillRect(b.drawn, colour);
    anyHatch |= b.replica > 0;
  }
  // The second pipeline direction (Chimera's "up" replica): hatched over its colour.
  if (anyHatch) {
    const QBrush hatch(c.hatch, Qt::BDiagPattern);
    for (const auto& b : boxes_)
      if (b.replica > 0 && b.drawn.width() > 2) p.fillRect(b.drawn, hatch);
  }
  if (filtering) {
    p.setPen(QPen(c.text, 1));
    p.setBrush(Qt::NoBrush);
    for (const auto& b : boxes_)
      if (!b.drawn.isEmpty() && highlighted(b)) p.drawRect(b.drawn.adjusted(0, 0, -1, -1));
  }
}

void TimelineView::drawAxis(QPainter& p, const Colours& c) {
  p.fillRect(QRect(kGutter, kAxis - 1, width() - kGutter, 1), c.text);
  p.setPen(c.text);
  p.setFont(font());
  const QFontMetricsF fm(font());
  const double baseline = 2 + (kAxis - 6 - fm.height()) / 2 + fm.ascent();
  const std::int64_t magnitude = std::max(trace::satAbs(range_.start), trace::satAbs(range_.end));
  double freeFrom = kGutter;  // labels never overlap, nor leave the view on the right
  for (std::size_t k = 0; k < ticks_.size(); ++k) {
    p.fillRect(QRect(gridX_[k], kAxis - 6, 1, 6), c.text);
    const QString label = QString::fromStdString(tickLabel(ticks_[k], tickStep_, magnitude));
    const double w = fm.horizontalAdvance(label);
    double x = gridX_[k] + 3;
    if (x + w > width() - 3) x = gridX_[k] - 3 - w;
    if (x < freeFrom || x + w > width() - 3) continue;
    p.drawText(QPointF(x, baseline), label);
    freeFrom = x + w + 8;
  }
}

// Micro-batch numbers inside single compute ops wide enough for them ("3", or "3·1" for chunk 1
// on interleaved and V schedules), laid out once per label.
void TimelineView::drawBoxLabels(QPainter& p) {
  const int chunks = std::max(1, chunks_.chunksPerRank());
  for (const auto& b : boxes_) {
    if (!b.labelled || b.count != 1 || b.rect.width() < 16 || b.drawn.height() < 10) continue;
    const std::int32_t mb = b.cols->microbatch[b.first];
    if (mb < 0) {
      drawNameLabel(p, b);
      continue;
    }
    QStaticText spare;
    QStaticText* text = &spare;
    const std::int64_t key = static_cast<std::int64_t>(mb) * chunks + b.chunk;
    if (key < (1 << 16)) {
      if (static_cast<std::size_t>(key) >= numberText_.size()) numberText_.resize(key + 1);
      text = &numberText_[key];
    }
    if (text->text().isEmpty()) {
      text->setText(chunks_.marksChunks() ? QString("%1·%2").arg(mb).arg(b.chunk)
                                          : QString::number(mb));
      text->setTextFormat(Qt::PlainText);
    }
    const QSizeF size = text->size();
    if (size.width() + 4 > b.rect.width()) continue;
    p.setPen(labelColour(b));
    p.drawStaticText(QPointF(b.rect.x() + (b.rect.width() - size.width()) / 2,
                             b.rect.y() + (b.rect.height() - size.height()) / 2),
                     *text);
  }
}

// Readable on the box: on a dimmed one (outside a search) the text recedes with it.
QColor TimelineView::labelColour(const Box& b) const {
  if (!filtering_ || highlighted(b)) return kindTextColor(b.kind);
  QColor c = palette().color(QPalette::WindowText);
  c.setAlpha(90);
  return c;
}

// Imported ops have names but no micro-batch: the name, elided, in boxes wide enough for it.
void TimelineView::drawNameLabel(QPainter& p, const Box& b) {
  const std::string* name = run_->nameOf(b.cols->name[b.first]);
  if (!name || b.rect.width() < 40) return;
  const QRect inner = b.drawn.adjusted(4, 0, -4, 0);
  const QString text =
      p.fontMetrics().elidedText(QString::fromStdString(*name), Qt::ElideRight, inner.width());
  if (text.size() < 2) return;
  p.setPen(labelColour(b));
  p.drawText(inner, Qt::AlignCenter, text);
}

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  if (!geometryValid_) rebuildGeometry();
  QPainter p(this);
  const Colours c = colours();
  if (!run_) {
    p.fillRect(rect(), c[Ground::Plain]);
    p.setPen(c.text);
    p.drawText(rect(), Qt::AlignCenter, "No run loaded");
    drawFocusFrame(p);
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
  drawIdleCauses(p, palette().color(QPalette::Window).lightness() < 128);
  paintBoxes(p, c);
  // Overlays stay inside the plot: never over the rank labels nor the axis. Labels go on top of
  // outlines and arrows so that lines never run through them.
  p.save();
  p.setClipRect(plotRect());
  drawSelection(p);
  drawFlows(p);
  drawCriticalPath(p);
  drawBoxLabels(p);
  p.restore();
  if (layout_.pinnedHeight() > 0) {
    QColor line = c.text;
    line.setAlpha(110);
    p.fillRect(QRect(0, scrollTop() - 1, width(), 1), line);
  }
  drawAxis(p, c);
  drawRangeBand(p);
  drawFocusFrame(p);
  lastPaintMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

}  // namespace ps::ui
