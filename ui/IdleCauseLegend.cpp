#include "ui/IdleCauseLegend.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>

#include "trace/analysis/BubbleAttribution.h"
#include "ui/timeline/IdleCauses.h"

namespace ps::ui {

IdleCauseLegend::IdleCauseLegend(QWidget* parent) : QWidget(parent) {
  setObjectName("idleCauseLegend");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 0, 4, 0);
  layout->setSpacing(10);
  rebuild();
}

void IdleCauseLegend::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) rebuild();
  QWidget::changeEvent(event);
}

void IdleCauseLegend::rebuild() {
  auto* layout = static_cast<QHBoxLayout*>(this->layout());
  // The palette changed: drop every swatch and label (those of the nested pairs too).
  while (QLayoutItem* item = layout->takeAt(0)) {
    if (QLayout* pair = item->layout())
      while (QLayoutItem* sub = pair->takeAt(0)) {
        delete sub->widget();
        delete sub;
      }
    delete item->widget();
    delete item;
  }
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  auto* head = new QLabel("idle, by cause:", this);
  layout->addWidget(head);
  const int h = fontMetrics().height();
  for (int c = 0; c < trace::kIdleCauseCount; ++c) {
    const auto cause = static_cast<trace::IdleCause>(c);
    QPixmap swatch(h, h - 2);
    swatch.fill(palette().color(QPalette::Base));
    {
      QPainter p(&swatch);
      QColor tint = idleCauseColour(cause, dark);
      tint.setAlpha(dark ? 70 : 45);
      const QBrush brush = idleCauseBrush(cause, dark);
      if (brush.style() != Qt::SolidPattern) p.fillRect(swatch.rect(), tint);
      p.fillRect(swatch.rect(), brush);
      p.setPen(palette().color(QPalette::Mid));
      p.drawRect(swatch.rect().adjusted(0, 0, -1, -1));
    }
    auto* icon = new QLabel(this);
    icon->setPixmap(swatch);
    auto* text = new QLabel(QString::fromUtf8(trace::idleCauseLabel(cause).data()), this);
    auto* pair = new QHBoxLayout;
    pair->setSpacing(4);
    pair->addWidget(icon);
    pair->addWidget(text);
    layout->addLayout(pair);
  }
  layout->addStretch(1);
}

}  // namespace ps::ui
