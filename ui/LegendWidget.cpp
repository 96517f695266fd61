#include "ui/LegendWidget.h"

#include <QEvent>
#include <QPainter>
#include <QStringList>

#include "trace/RunTrace.h"
#include "ui/timeline/KindPalette.h"
#include "ui/timeline/StageChunks.h"

namespace ps::ui {

LegendFills legendFillsOf(const trace::RunTrace& run) {
  const StageChunks chunks(run);
  return {chunks.marksChunks(), chunks.marksDirections()};
}

std::vector<LegendEntry> legendEntries(bool dark, LegendFills fills) {
  using trace::OpKind;
  struct Row {
    const char* label;
    const char* shortLabel;
    std::vector<OpKind> kinds;
  };
  const std::vector<Row> rows = {
      {"F forward", "F", {OpKind::F}},
      {"B backward", "B", {OpKind::B}},
      {"I input grad", "I", {OpKind::I}},
      {"W weight grad", "W", {OpKind::W}},
      {"R recompute", "R", {OpKind::R}},
      {"OPT optimizer", "OPT", {OpKind::OPT}},
      {"FILL fill work", "FILL", {OpKind::FILL}},
      {"send/recv F", "F s/r", {OpKind::SEND_F, OpKind::RECV_F}},
      {"send/recv B", "B s/r", {OpKind::SEND_B, OpKind::RECV_B}},
      {"AR/A2A collective", "AR/A2A", {OpKind::AR, OpKind::A2A}},
      {"offload/reload", "offload", {OpKind::OFFLOAD, OpKind::RELOAD}},
      {"OTHER imported", "OTHER", {OpKind::OTHER}},
  };
  std::vector<LegendEntry> out;
  for (const Row& r : rows)
    out.push_back({kindColor(r.kinds.front()), r.label, r.shortLabel, r.kinds});
  out.push_back({bubbleColor(dark), "idle (bubble)", "idle", {}});
  // As the timeline paints them (TimelinePainter): chunk 1 is the kind's colour 70/255 of the
  // way to white; the second direction is hatched over its colour. Shown on a forward.
  const QColor forward = kindColor(OpKind::F);
  const auto lighter = [&](int c) { return c + (255 - c) * 70 / 255; };
  if (fills.laterChunks)
    out.push_back(
        {QColor(lighter(forward.red()), lighter(forward.green()), lighter(forward.blue())),
         "lighter: model chunk 1+",
         "chunk 1+",
         {}});
  if (fills.secondDirection)
    out.push_back({forward, "hatched: second direction (up)", "up", {}, true});
  return out;
}

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  setObjectName("legend");
  // Rows of swatches, as many as the width needs (height for width): without a minimum height a
  // crowded dock squeezed it to nothing, and a Fixed policy would cap it at one row.
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
  rebuild();
}

void LegendWidget::setRun(const trace::RunTrace* run) {
  fills_ = run ? legendFillsOf(*run) : LegendFills{};
  rebuild();
}

void LegendWidget::rebuild() {
  entries_ = legendEntries(dark(), fills_);
  QStringList all;
  for (const LegendEntry& e : entries_)
    all << e.label;
  setToolTip(all.join(" · "));
  updateGeometry();
  update();
}

bool LegendWidget::dark() const {
  return palette().color(QPalette::Window).lightness() < 128;
}

void LegendWidget::changeEvent(QEvent* event) {
  // The bubble shade follows the palette, as the timeline's does.
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) rebuild();
  QWidget::changeEvent(event);
}

LegendWidget::Layout LegendWidget::layoutFor(int width, bool compact) const {
  const QFontMetrics fm = fontMetrics();
  const int h = fm.height(), pitch = h + 6;
  Layout l;
  int x = 4, y = 4;
  for (const LegendEntry& e : entries_) {
    const QString& text = compact ? e.shortLabel : e.label;
    const int w = h + 4 + fm.horizontalAdvance(text);
    if (x > 4 && x + w > width - 4) {  // wrap, unless it is the row's first entry
      x = 4;
      y += pitch;
    }
    l.swatches.emplace_back(x, y, h, h - 2);
    l.labels.emplace_back(x + h + 4, y - 2 + fm.ascent());
    l.texts.push_back(text);
    x += w + 14;
  }
  l.height = y + h + 4;
  return l;
}

QSize LegendWidget::sizeHint() const {
  // One row when there is room; the layout asks heightForWidth for the real height.
  const Layout one = layoutFor(100000, false);
  const int w = one.labels.empty() ? 600 : one.labels.back().x() + 200;
  return {std::min(w, 1200), fontMetrics().height() + 8};
}

int LegendWidget::heightForWidth(int width) const {
  return layoutFor(width, false).height;
}

bool LegendWidget::compact() const {
  // Given less height than the full labels need (a PNG export sized to one row), short labels.
  return layoutFor(width(), false).height > height();
}

std::vector<QRect> LegendWidget::swatchRects(int width) const {
  return layoutFor(width < 0 ? this->width() : width, width < 0 && compact()).swatches;
}

void LegendWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const Layout l = layoutFor(width(), compact());
  const QColor fg = palette().color(QPalette::WindowText);
  // A frame halfway between text and background: visible round dark swatches on a dark window
  // and light ones on a light window, without competing with the colours.
  const QColor bg = palette().color(QPalette::Window);
  const QColor frame((fg.red() + bg.red()) / 2, (fg.green() + bg.green()) / 2,
                     (fg.blue() + bg.blue()) / 2);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const QRect s = l.swatches[i];
    const QRect f = s.adjusted(-1, -1, 1, 1);
    p.fillRect(QRect(f.left(), f.top(), f.width(), 1), frame);
    p.fillRect(QRect(f.left(), f.bottom(), f.width(), 1), frame);
    p.fillRect(QRect(f.left(), f.top(), 1, f.height()), frame);
    p.fillRect(QRect(f.right(), f.top(), 1, f.height()), frame);
    p.fillRect(s, entries_[i].colour);
    if (entries_[i].hatched)
      p.fillRect(
          s, QBrush(dark() ? QColor(0, 0, 0, 150) : QColor(255, 255, 255, 170), Qt::BDiagPattern));
    p.setPen(fg);
    p.drawText(l.labels[i], l.texts[i]);
  }
}

}  // namespace ps::ui
