#include "ui/timeline/TimelinePainter.h"

#include <QHashFunctions>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

#include "trace/Units.h"
#include "ui/timeline/KindPalette.h"

namespace ps::ui {

namespace {

constexpr int kShades = 4;  // chunk 0, 1, 2, 3 and more

// `fg` over `bg` at alpha/255, as an opaque colour: the grid drawn behind the boxes.
QColor blend(const QColor& bg, const QColor& fg, int alpha) {
  auto mix = [&](int b, int f) { return b + (f - b) * alpha / 255; };
  return QColor(mix(bg.red(), fg.red()), mix(bg.green(), fg.green()), mix(bg.blue(), fg.blue()));
}

void arrow(QPainter& p, QPointF a, QPointF b, const QColor& colour, double head) {
  p.setPen(QPen(colour, 1.5));
  p.drawLine(a, b);
  const QPointF dir = (b - a) / std::max(1.0, std::hypot(b.x() - a.x(), b.y() - a.y()));
  const QPointF n(-dir.y(), dir.x());
  p.setPen(Qt::NoPen);
  p.setBrush(colour);
  p.drawPolygon(QPolygonF({b, b - dir * head + n * head / 2, b - dir * head - n * head / 2}));
}

bool highlighted(const TimelineData& data, const SceneBox& b) {
  return data.highlighted(b.cols, b.first, b.count);
}

}  // namespace

struct TimelinePainter::Colours {
  QColor ground[4];  // in Ground's order
  QColor kind[trace::kOpKindCount][kShades];
  QColor dim[trace::kOpKindCount];
  QColor text, hatch, highlight;
  const QColor& operator[](Ground g) const { return ground[static_cast<int>(g)]; }
};

TimelinePainter::Colours TimelinePainter::colours(const QPalette& palette) {
  Colours c;
  const bool dark = palette.color(QPalette::Window).lightness() < 128;
  const QColor base = palette.color(QPalette::Base), bubble = bubbleColor(dark);
  c.text = palette.color(QPalette::WindowText);
  c.highlight = palette.color(QPalette::Highlight);
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

void TimelinePainter::paintEmpty(QPainter& p, const QRect& rect, const PaintTarget& target) {
  p.fillRect(rect, target.palette.color(QPalette::Base));
  p.setPen(target.palette.color(QPalette::WindowText));
  p.drawText(rect, Qt::AlignCenter, "No run loaded");
  paintFocusFrame(p, rect, target);
}

void TimelinePainter::paint(QPainter& p, const TimelineScene& scene, const TimelineData& data,
                            const SceneOverlays& overlays, const PaintTarget& target) {
  const Colours c = colours(target.palette);
  const int width = scene.frame().width;
  p.setRenderHint(QPainter::Antialiasing, false);
  const int scale = DevicePixelCache::blitScale(p);
  gutter_.paint(p, scene, *data.run(), target.layoutGeneration, target.palette, target.font,
                target.device, scale);
  p.fillRect(QRect(TimelineScene::kGutter, 0, width - TimelineScene::kGutter, TimelineScene::kAxis),
             c[Ground::Plain]);
  paintPlainStrips(p, scene, c, target, scale);
  for (const auto& g : scene.ground())
    p.fillRect(g.rect, c[g.ground]);
  paintCauses(p, overlays, target.palette.color(QPalette::Window).lightness() < 128);
  paintBoxes(p, scene, data, c);
  // Overlays stay inside the plot: never over the rank labels nor the axis. Labels go on top of
  // outlines and arrows so that lines never run through them.
  p.save();
  p.setClipRect(scene.plotRect());
  labels_.place(scene, data, target.palette, target.font);
  paintSelection(p, overlays, target.palette);
  paintFlows(p, overlays, target.palette);
  paintSlack(p, overlays, target.palette);
  paintMoves(p, overlays);
  paintCriticalPath(p, overlays, scene.plotRect(), labels_);
  labels_.paint(p);
  p.restore();
  if (target.pinnedHeight > 0) {
    QColor line = c.text;
    line.setAlpha(110);
    p.fillRect(QRect(0, TimelineScene::kAxis + target.pinnedHeight - 1, width, 1), line);
  }
  paintAxis(p, scene, c, target.font);
  paintBand(p, overlays, scene, target.palette, target.font);
  paintFocusFrame(p, QRect(0, 0, width, scene.frame().height), target);
}

void TimelinePainter::fillPlain(QPainter& p, const QRect& strip, const TimelineScene& scene,
                                const Colours& c) {
  p.fillRect(strip, c[Ground::Plain]);
  for (const SceneTick& tick : scene.ticks())
    p.fillRect(QRect(tick.x, strip.y(), 1, strip.height()), c[Ground::GridOnPlain]);
}

// The strips between compute bands are all alike: where a cached image can be blitted 1:1, one
// strip is drawn at device resolution and copied down the view (a fill with grid columns costs
// a call per row per column). Elsewhere (SVG, fractional scales) they are filled.
void TimelinePainter::paintPlainStrips(QPainter& p, const TimelineScene& scene, const Colours& c,
                                       const PaintTarget& target, int scale) {
  if (!scale) {
    for (const QRect& strip : scene.plainStrips())
      fillPlain(p, strip, scene, c);
    return;
  }
  int tallest = 1;
  for (const QRect& strip : scene.plainStrips())
    tallest = std::max(tallest, strip.height());
  const QRect cached(TimelineScene::kGutter, 0, scene.frame().width - TimelineScene::kGutter,
                     std::min(tallest, 64));
  const auto key =
      qHashMulti(0, scene.generation(), c[Ground::Plain].rgba(), c[Ground::GridOnPlain].rgba());
  plainCache_.image(key, cached.size(), scale, target.device, [&](QPainter& cp) {
    cp.translate(-TimelineScene::kGutter, 0);
    fillPlain(cp, cached, scene, c);
  });
  for (const QRect& strip : scene.plainStrips())
    for (int y = strip.top(); y <= strip.bottom(); y += cached.height()) {
      const int h = std::min(cached.height(), strip.bottom() + 1 - y);
      plainCache_.blit(p, {TimelineScene::kGutter, y}, QRect(0, 0, cached.width(), h));
    }
}

void TimelinePainter::paintCauses(QPainter& p, const SceneOverlays& overlays, bool dark) {
  for (const SceneCause& part : overlays.causes) {
    const QBrush brush = idleCauseBrush(part.cause, dark);
    if (brush.style() != Qt::SolidPattern) {
      QColor tint = brush.color();
      tint.setAlpha(dark ? 70 : 45);
      p.fillRect(part.rect, tint);
    }
    p.fillRect(part.rect, brush);
  }
}

void TimelinePainter::paintBoxes(QPainter& p, const TimelineScene& scene, const TimelineData& data,
                                 const Colours& c) {
  const bool filtering = data.filtering();
  bool anyHatch = false;
  for (const auto& b : scene.boxes()) {
    if (b.drawn.isEmpty()) continue;
    const int k = static_cast<int>(b.kind);
    const QColor& colour = filtering && !highlighted(data, b)
                               ? c.dim[k]
                               : c.kind[k][std::min<int>(b.chunk, kShades - 1)];
    p.fillRect(b.drawn, colour);
    anyHatch |= b.replica > 0;
  }
  // The second pipeline direction (Chimera's "up" replica): hatched over its colour.
  if (anyHatch) {
    const QBrush hatch(c.hatch, Qt::BDiagPattern);
    for (const auto& b : scene.boxes())
      if (b.replica > 0 && b.drawn.width() > 2) p.fillRect(b.drawn, hatch);
  }
  if (filtering) {
    p.setPen(QPen(c.text, 1));
    p.setBrush(Qt::NoBrush);
    for (const auto& b : scene.boxes())
      if (!b.drawn.isEmpty() && highlighted(data, b)) p.drawRect(b.drawn.adjusted(0, 0, -1, -1));
  }
}

void TimelinePainter::paintSelection(QPainter& p, const SceneOverlays& overlays,
                                     const QPalette& palette) {
  const QColor text = palette.color(QPalette::WindowText);
  p.setPen(QPen(text, 1));
  p.setBrush(Qt::NoBrush);
  for (const QRect& r : overlays.microbatch)
    p.drawRect(r.adjusted(0, 0, -1, -1));
  const QRect self = overlays.selected;
  if (self.isEmpty()) return;
  p.setPen(QPen(palette.color(QPalette::Highlight), self.height() > 10 ? 3 : 2));
  p.drawRect(self.height() > 10 ? self.adjusted(1, 1, -2, -2) : self.adjusted(0, 0, -1, -1));
  // Dependencies in the text colour, what waits for the op in the highlight colour.
  p.setRenderHint(QPainter::Antialiasing, true);
  for (const SceneArrow& a : overlays.dependencies)
    arrow(p, a.from, a.to, text, 8);
  for (const SceneArrow& a : overlays.dependents)
    arrow(p, a.from, a.to, palette.color(QPalette::Highlight), 8);
  p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelinePainter::paintFlows(QPainter& p, const SceneOverlays& overlays,
                                 const QPalette& palette) {
  if (overlays.flows.empty()) return;
  QColor colour = palette.color(QPalette::WindowText);
  colour.setAlpha(170);
  p.setRenderHint(QPainter::Antialiasing, true);
  for (const SceneArrow& a : overlays.flows)
    arrow(p, a.from, a.to, colour, 6);
  p.setRenderHint(QPainter::Antialiasing, false);
}

// Slack: Okabe-Ito bluish green, a solid thin band with a tick at its far end (where the step
// would start to end later), readable on the idle tints and both palettes.
void TimelinePainter::paintSlack(QPainter& p, const SceneOverlays& overlays,
                                 const QPalette& palette) {
  if (overlays.slackBands.empty()) return;
  const QColor green(0, 158, 115);
  const QColor tick = palette.color(QPalette::WindowText);
  for (const QRect& r : overlays.slackBands) {
    p.fillRect(r, green);
    p.fillRect(QRect(r.right(), r.top() - 2, 1, r.height() + 2), tick);
  }
}

// Compare: later than in A a dark bar, earlier a light one (the kinds' own colours are blue and
// vermillion: a coloured bar vanished on its box), as strong as the move is large against the
// run's largest (at least a third, so a small move still shows).
void TimelinePainter::paintMoves(QPainter& p, const SceneOverlays& overlays) {
  for (const auto& bar : overlays.moveBars) {
    QColor c = bar.share > 0 ? QColor(0, 0, 0) : QColor(255, 255, 255);
    c.setAlphaF(0.33 + 0.67 * std::min(1.0, std::abs(bar.share)));
    p.fillRect(bar.rect, c);
  }
}

// The path stays out of the labels: its yellow behind white digits made them unreadable.
void TimelinePainter::paintCriticalPath(QPainter& p, const SceneOverlays& overlays,
                                        const QRect& plot, const BoxLabels& labels) {
  if (overlays.pathOps.empty()) return;
  const QColor outline(240, 228, 66);  // Okabe-Ito yellow, with a dark edge to read on any kind
  const QColor edge(0, 0, 0, 160);
  QPainterPath line;
  for (const auto& piece : overlays.pathLines) {
    line.moveTo(piece.front());
    for (std::size_t k = 1; k < piece.size(); ++k)
      line.lineTo(piece[k]);
  }
  p.save();
  p.setClipRegion(QRegion(plot) - labels.area());
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(edge, 4));
  p.drawPath(line);
  p.setPen(QPen(outline, 2));
  p.drawPath(line);
  p.setRenderHint(QPainter::Antialiasing, false);
  for (const QRect& r : overlays.pathOps) {
    p.setPen(QPen(edge, 1));
    p.drawRect(r.adjusted(-2, -2, 1, 1));
    p.setPen(QPen(outline, 2));
    p.drawRect(r.adjusted(-1, -1, 0, 0));
  }
  p.restore();
}

void TimelinePainter::paintAxis(QPainter& p, const TimelineScene& scene, const Colours& c,
                                const QFont& font) {
  const int width = scene.frame().width;
  const TimeRange& range = scene.frame().range;
  p.fillRect(
      QRect(TimelineScene::kGutter, TimelineScene::kAxis - 1, width - TimelineScene::kGutter, 1),
      c.text);
  p.setPen(c.text);
  p.setFont(font);
  const QFontMetricsF fm(font);
  const double baseline = 2 + (TimelineScene::kAxis - 6 - fm.height()) / 2 + fm.ascent();
  const std::int64_t magnitude = std::max(trace::satAbs(range.start), trace::satAbs(range.end));
  // Labels never overlap nor leave the view on the right, and keep a clear gap: with 8 px the
  // last label, turned to the left of its tick at the axis's end, sat against the one before
  // ("2.5 ms 3.0 ms|") and read as its neighbour's; a label that would come closer is skipped.
  constexpr double kLabelGap = 20;
  double freeFrom = TimelineScene::kGutter;
  for (const SceneTick& tick : scene.ticks()) {
    p.fillRect(QRect(tick.x, TimelineScene::kAxis - 6, 1, 6), c.text);
    const QString label = QString::fromStdString(tickLabel(tick.time, scene.tickStep(), magnitude));
    const double w = fm.horizontalAdvance(label);
    double x = tick.x + 3;
    if (x + w > width - 3) x = tick.x - 3 - w;
    if (x < freeFrom || x + w > width - 3) continue;
    p.drawText(QPointF(x, baseline), label);
    freeFrom = x + w + kLabelGap;
  }
}

void TimelinePainter::paintBand(QPainter& p, const SceneOverlays& overlays,
                                const TimelineScene& scene, const QPalette& palette,
                                const QFont& font) {
  if (!overlays.band) return;
  const QRect band = overlays.band->rect;
  const int width = scene.frame().width;
  QColor fill = palette.color(QPalette::Highlight);
  fill.setAlpha(55);
  p.fillRect(band, fill);
  fill.setAlpha(200);
  p.fillRect(QRect(band.left(), 0, 1, band.height()), fill);
  p.fillRect(QRect(band.right(), 0, 1, band.height()), fill);
  // The live readout sits in the axis strip, inside the band when it fits.
  const QString label =
      QString("Δ %1").arg(QString::fromStdString(trace::formatDuration(overlays.band->length)));
  const QFontMetrics fm(font);
  const int tw = fm.horizontalAdvance(label) + 8;
  int left = band.center().x() - tw / 2;
  left = std::clamp(left, TimelineScene::kGutter, std::max(TimelineScene::kGutter, width - tw - 2));
  const QRect box(left, 2, tw, TimelineScene::kAxis - 8);
  p.fillRect(box, palette.color(QPalette::Highlight));
  p.setPen(palette.color(QPalette::HighlightedText));
  p.drawText(box, Qt::AlignCenter, label);
}

void TimelinePainter::paintFocusFrame(QPainter& p, const QRect& rect, const PaintTarget& target) {
  if (!target.focus) return;
  p.setPen(QPen(target.palette.color(QPalette::Highlight), 2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(rect).adjusted(1, 1, -1, -1));
}

}  // namespace ps::ui
