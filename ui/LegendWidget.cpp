#include "ui/LegendWidget.h"

#include <QPainter>

#include "ui/timeline/KindPalette.h"

namespace ps::ui {

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  setObjectName("legend");
  // One row of swatches: without a fixed height a crowded dock squeezed it to nothing.
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

QSize LegendWidget::sizeHint() const {
  return {600, fontMetrics().height() + 8};
}

void LegendWidget::paintEvent(QPaintEvent*) {
  using trace::OpKind;
  QPainter p(this);
  const int h = fontMetrics().height();
  int x = 4;
  auto entry = [&](const QColor& c, const QString& label) {
    p.fillRect(QRect(x, 4, h, h - 2), c);
    x += h + 4;
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QPoint(x, 2 + fontMetrics().ascent()), label);
    x += fontMetrics().horizontalAdvance(label) + 14;
  };
  entry(kindColor(OpKind::F), "F forward");
  entry(kindColor(OpKind::B), "B backward");
  entry(kindColor(OpKind::I), "I input grad");
  entry(kindColor(OpKind::W), "W weight grad");
  entry(kindColor(OpKind::R), "R recompute");
  entry(kindColor(OpKind::OPT), "OPT");
  entry(kindColor(OpKind::SEND_F), "send/recv F");
  entry(kindColor(OpKind::SEND_B), "send/recv B");
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  entry(bubbleColor(dark), "bubble");
}

}  // namespace ps::ui
