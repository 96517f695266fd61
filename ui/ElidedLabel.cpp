#include "ui/ElidedLabel.h"

#include <QPainter>
#include <QResizeEvent>

namespace ps::ui {

QColor secondaryText(const QPalette& p) {
  const QColor fg = p.color(QPalette::WindowText), bg = p.color(QPalette::Window);
  return QColor((fg.red() * 3 + bg.red() * 2) / 5, (fg.green() * 3 + bg.green() * 2) / 5,
                (fg.blue() * 3 + bg.blue() * 2) / 5);
}

ElidedLabel::ElidedLabel(QWidget* parent, bool secondary) : QLabel(parent), secondary_(secondary) {
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString& text) {
  full_ = text;
  setToolTip(tail_.isEmpty() ? full_ : full_ + "\n\n" + tail_);
  elide();
  updateGeometry();
}

void ElidedLabel::setToolTipTail(const QString& tail) {
  tail_ = tail;
  setFullText(full_);
}

QSize ElidedLabel::minimumSizeHint() const {
  // As narrow as an ellipsis: the layout, not the text, decides the width.
  const QFontMetrics fm = fontMetrics();
  return {fm.horizontalAdvance(QChar(0x2026)) + 2, fm.height()};
}

QSize ElidedLabel::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.horizontalAdvance(full_) + 2, fm.height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  elide();
}

void ElidedLabel::elide() {
  const QString shown = fontMetrics().elidedText(full_, Qt::ElideRight, std::max(0, width() - 2));
  if (shown != text()) QLabel::setText(shown);
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(secondary_ ? secondaryText(palette()) : palette().color(QPalette::WindowText));
  p.drawText(contentsRect(), static_cast<int>(alignment()) | Qt::TextSingleLine, text());
}

}  // namespace ps::ui
