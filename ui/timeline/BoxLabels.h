#pragma once
// The boxes' labels: micro-batch numbers inside single compute ops ("3", or "3·1" for chunk 1 on
// interleaved and V schedules) and imported ops' names, elided. Placed before the overlays are
// painted, so that lines can stay out of the text (the critical path's yellow behind white digits
// made them unreadable), and painted after them. Never two labels over each other: where ops
// overlap on one row (a single-process import whose threads share a rank, ops nested deeper than
// the last depth row), a label that would cover one already placed in its row is left out.

#include <QColor>
#include <QFont>
#include <QRect>
#include <QRegion>
#include <QStaticText>
#include <QString>

#include <vector>

#include "ui/timeline/TimelineScene.h"

class QPainter;
class QPalette;

namespace ps::ui {

class BoxLabels {
 public:
  struct Label {
    QRect rect;  // the text's extent
    QRectF at;   // where it is drawn: a number's top left, a name centred in its box
    QColor colour;
    QStaticText number;  // a micro-batch label, laid out once (empty for a name)
    QString name;        // an imported op's name, elided to its box
  };

  // The labels of `scene`'s boxes in `font`, readable on their boxes (dimmed outside a search).
  void place(const TimelineScene& scene, const TimelineData& data, const QPalette& palette,
             const QFont& font);
  void paint(QPainter& p) const;
  const std::vector<Label>& labels() const { return labels_; }
  // Where the labels are, a pixel round each: what must not be drawn over text.
  QRegion area() const;
  // Forgets the numbers laid out for the last run.
  void forget() { numberText_.clear(); }

 private:
  // Whether `rect` is clear of the labels placed since `rowStart` (the labels of its row).
  bool clear(const QRect& rect, std::size_t rowStart) const;
  QStaticText number(const TimelineData& data, const SceneBox& b);

  QFont font_;
  // Labels ("3", "3·1") laid out once, dropped when the font changes; key mb * chunks + chunk.
  std::vector<QStaticText> numberText_;
  std::vector<Label> labels_;
};

}  // namespace ps::ui
