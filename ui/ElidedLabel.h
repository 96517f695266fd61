#pragma once
// A one-line label that never wraps and never widens its layout: text too long for its width is
// elided ("latency 5 µs, act 2 MB, F/B/…") and the whole of it is in the tooltip. Optionally
// drawn as secondary text, a colour between the palette's text and its window, so that it follows
// a palette change (light, dark) instead of freezing one colour.

#include <QLabel>
#include <QString>

class QPalette;

namespace ps::ui {

// Secondary text: between the text and its background, readable on both palettes (a palette
// set by hand often leaves PlaceholderText at the light palette's grey, invisible on dark).
QColor secondaryText(const QPalette& palette);

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  // `secondary`: drawn in secondaryText; else in the palette's WindowText.
  explicit ElidedLabel(QWidget* parent = nullptr, bool secondary = false);

  // The whole text; text() is what shows (elided when it does not fit). The tooltip is the whole
  // text, then `toolTipTail` (a paragraph further) when set.
  void setFullText(const QString& text);
  const QString& fullText() const { return full_; }
  void setToolTipTail(const QString& tail);

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void elide();

  QString full_, tail_;
  bool secondary_ = false;
};

}  // namespace ps::ui
