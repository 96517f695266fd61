#include "ui/LegendWidget.h"

#include <QEvent>
#include <QPainter>

#include "ui/timeline/KindPalette.h"

namespace ps::ui {

std::vector<LegendEntry> legendEntries(bool dark) {
  using trace::OpKind;
  const std::vector<std::pair<QString, std::vector<OpKind>>> kinds = {
      {"F forward", {OpKind::F}},
      {"B backward", {OpKind::B}},
      {"I input grad", {OpKind::I}},
      {"W weight grad", {OpKind::W}},
      {"R recompute", {OpKind::R}},
      {"OPT optimizer", {OpKind::OPT}},
      {"FILL fill work", {OpKind::FILL}},
      {"send/recv F", {OpKind::SEND_F, OpKind::RECV_F}},
      {"send/recv B", {OpKind::SEND_B, OpKind::RECV_B}},
      {"AR/A2A collective", {OpKind::AR, OpKind::A2A}},
      {"offload/reload", {OpKind::OFFLOAD, OpKind::RELOAD}},
      {"OTHER imported", {OpKind::OTHER}},
  };
  std::vector<LegendEntry> out;
  for (const auto& [label, members] : kinds)
    out.push_back({kindColor(members.front()), label, members});
  out.push_back({bubbleColor(dark), "idle (bubble)", {}});
  return out;
}

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  setObjectName("legend");
  // Rows of swatches, as many as the width needs (height for width): without a minimum height a
  // crowded dock squeezed it to nothing, and a Fixed policy would cap it at one row.
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
  entries_ = legendEntries(dark());
}

bool LegendWidget::dark() const {
  return palette().color(QPalette::Window).lightness() < 128;
}

void LegendWidget::changeEvent(QEvent* event) {
  // The bubble shade follows the palette, as the timeline's does.
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
    entries_ = legendEntries(dark());
    updateGeometry();
    update();
  }
  QWidget::changeEvent(event);
}

LegendWidget::Layout LegendWidget::layoutFor(int width) const {
  const QFontMetrics fm = fontMetrics();
  const int h = fm.height(), pitch = h + 6;
  Layout l;
  int x = 4, y = 4;
  for (const LegendEntry& e : entries_) {
    const int w = h + 4 + fm.horizontalAdvance(e.label);
    if (x > 4 && x + w > width - 4) {  // wrap, unless it is the row's first entry
      x = 4;
      y += pitch;
    }
    l.swatches.emplace_back(x, y, h, h - 2);
    l.labels.emplace_back(x + h + 4, y - 2 + fm.ascent());
    x += w + 14;
  }
  l.height = y + h + 4;
  return l;
}

QSize LegendWidget::sizeHint() const {
  // One row when there is room; the layout asks heightForWidth for the real height.
  const Layout one = layoutFor(100000);
  const int w = one.labels.empty() ? 600 : one.labels.back().x() + 200;
  return {std::min(w, 1200), fontMetrics().height() + 8};
}

int LegendWidget::heightForWidth(int width) const {
  return layoutFor(width).height;
}

std::vector<QRect> LegendWidget::swatchRects(int width) const {
  return layoutFor(width < 0 ? this->width() : width).swatches;
}

void LegendWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const Layout l = layoutFor(width());
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
    p.setPen(fg);
    p.drawText(l.labels[i], entries_[i].label);
  }
}

}  // namespace ps::ui
