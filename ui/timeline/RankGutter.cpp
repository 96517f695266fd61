#include "ui/timeline/RankGutter.h"

#include <QHashFunctions>
#include <QPainter>

namespace ps::ui {

namespace {

QString rankDevice(const trace::RunTrace& run, int rank) {
  const auto& info = run.ranks[rank].info;
  // The device says which GPU a rank is; a simulator's "sim" says nothing the title does not.
  if (!info.device || info.device->empty() || *info.device == run.info.source) return {};
  return QString::fromStdString(*info.device);
}

QString rankTitle(const trace::RunTrace& run, int rank) {
  const QString device = rankDevice(run, rank);
  return device.isEmpty() ? QString("rank %1").arg(rank)
                          : QString("rank %1 · %2").arg(rank).arg(device);
}

// Disclosure mark (▾ expanded, ▸ collapsed) and pin mark (a head and a needle, solid when
// pinned) of the track whose first row's middle is at `mid`.
void drawMarks(QPainter& p, const Track& t, int mid, const QColor& text, const QColor& sub,
               const QColor& faint) {
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(Qt::NoPen);
  p.setBrush(t.collapsed ? sub : text);
  const QPolygonF mark =
      t.collapsed ? QPolygonF({QPointF(5, mid - 4), QPointF(10, mid), QPointF(5, mid + 4)})
                  : QPolygonF({QPointF(4, mid - 2), QPointF(12, mid - 2), QPointF(8, mid + 3)});
  p.drawPolygon(mark);
  const QColor pin = t.pinned ? text : faint;
  p.setBrush(pin);
  p.drawEllipse(QPointF(TimelineScene::kGutter - 9, mid - 2), 3, 3);
  p.setPen(QPen(pin, 1.5));
  p.drawLine(QPointF(TimelineScene::kGutter - 9, mid),
             QPointF(TimelineScene::kGutter - 9, mid + 5));
  p.setRenderHint(QPainter::Antialiasing, false);
}

}  // namespace

RankGutter::Mark RankGutter::markAt(int x) {
  if (x < kMarkWidth) return Mark::Disclosure;
  if (x >= TimelineScene::kGutter - kMarkWidth) return Mark::Pin;
  return Mark::None;
}

QString RankGutter::tooltip(const trace::RunTrace& run, const Track& t) {
  const auto& info = run.ranks[t.rank].info;
  QString text = QString("rank %1").arg(t.rank);
  if (info.host) text += QString("  host %1").arg(QString::fromStdString(*info.host));
  if (info.device) text += QString("  device %1").arg(QString::fromStdString(*info.device));
  return text + (t.collapsed ? QString("\nclick ▸ to expand") : QString("\nclick ▾ to collapse")) +
         (t.pinned ? QString(", the pin to unpin") : QString(", the pin to keep it on top")) +
         "; right-click for more";
}

void RankGutter::paint(QPainter& p, const TimelineScene& scene, const trace::RunTrace& run,
                       std::uint64_t layoutGeneration, const QPalette& palette, const QFont& font,
                       const QPaintDevice& like, int scale) {
  const QRect gutter(0, 0, TimelineScene::kGutter, scene.frame().height);
  const QColor base = palette.color(QPalette::Base);
  if (!scale) {
    p.fillRect(gutter, base);
    drawLabels(p, scene, run, palette, font);
    return;
  }
  const auto key =
      qHashMulti(0, run.ranks.size(), font, base.rgba(), palette.color(QPalette::WindowText).rgba(),
                 layoutGeneration, scene.frame().offset);
  cache_.image(key, gutter.size(), scale, like, [&](QPainter& cp) {
    cp.fillRect(gutter, base);
    cp.setFont(font);
    drawLabels(cp, scene, run, palette, font);
  });
  cache_.blit(p, {0, 0}, gutter);
}

void RankGutter::drawLabels(QPainter& p, const TimelineScene& scene, const trace::RunTrace& run,
                            const QPalette& palette, const QFont& font) {
  const QColor text = palette.color(QPalette::WindowText);
  QColor sub = text, faint = text;
  sub.setAlpha(120);
  faint.setAlpha(50);
  QFont small = font;
  small.setPointSizeF(font.pointSizeF() * 0.75);
  const QFontMetrics fm(font), smallFm(small);
  int labelledTo = TimelineScene::kAxis;  // collapsed tracks' labels thin out to those that fit
  for (const Track& t : scene.tracks()) {
    p.save();
    p.setClipRect(QRect(0, t.clipTop, TimelineScene::kGutter, t.clipBottom - t.clipTop));
    const int mid = t.computeTop + (t.collapsed ? t.computeHeight : t.rowHeight) / 2;
    drawMarks(p, t, mid, text, sub, faint);
    const int textLeft = 15, textWidth = TimelineScene::kGutter - textLeft - 15;
    if (t.collapsed) {
      const int top = mid - smallFm.height() / 2;
      if (top >= labelledTo) {
        p.setPen(sub);
        p.setFont(small);
        p.drawText(QRect(textLeft, top, textWidth, smallFm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   smallFm.elidedText(rankTitle(run, t.rank), Qt::ElideRight, textWidth));
        labelledTo = top + smallFm.height();
      }
    } else {
      // "rank 12 · GPU 3" when it fits, else the device goes to the second line, elided.
      const QString title = rankTitle(run, t.rank), device = rankDevice(run, t.rank);
      const bool fits = fm.horizontalAdvance(title) <= textWidth;
      p.setPen(text);
      p.setFont(font);
      p.drawText(
          QRect(textLeft, t.computeTop, textWidth, t.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
          fits ? title : fm.elidedText(QString("rank %1").arg(t.rank), Qt::ElideRight, textWidth));
      // Compact tracks' send/recv rows are too thin for a second line.
      if (2 * t.commHeight >= smallFm.height() - 2) {
        p.setPen(sub);
        p.setFont(small);
        const int subWidth = TimelineScene::kGutter - textLeft - 4;
        p.drawText(QRect(textLeft, t.commTop, subWidth, 2 * t.commHeight),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   fits || device.isEmpty() ? QString("send / recv")
                                            : smallFm.elidedText(device, Qt::ElideRight, subWidth));
      }
      labelledTo = t.top + t.height;
    }
    p.restore();
  }
  p.setFont(font);
}

}  // namespace ps::ui
