#pragma once
// The legend of the op kind colours and the idle (bubble) shade: one entry per colour of
// KindPalette, covering every trace::OpKind, wrapped onto more rows when the dock is narrow.
// Swatches have a thin frame so that dark colours stay visible on the dark palette. Given less
// height than its width needs (an export sized to one row) it falls back to short labels.

#include <QColor>
#include <QRect>
#include <QString>
#include <QWidget>

#include <vector>

#include "trace/OpKind.h"

namespace ps::trace {
struct RunTrace;
}

namespace ps::ui {

struct LegendEntry {
  QColor colour;
  QString label;
  QString shortLabel;  // when the widget is given too little height for the full labels
  std::vector<trace::OpKind> kinds;  // the kinds painted in this colour; none for the bubble
  bool hatched = false;              // the colour under the timeline's hatch (the second direction)
};
// What a run's boxes show besides their kind's colour.
struct LegendFills {
  bool laterChunks = false;      // chunk 1 and later drawn lighter
  bool secondDirection = false;  // the second pipeline's ops hatched
};
LegendFills legendFillsOf(const trace::RunTrace& run);
// Every entry in legend order: the kinds, the timeline's idle shade for `dark`, then the
// lighter and hatched fills `fills` has.
std::vector<LegendEntry> legendEntries(bool dark, LegendFills fills = {});

class LegendWidget : public QWidget {
 public:
  explicit LegendWidget(QWidget* parent = nullptr);
  // The fills `run` has join the legend (null: the kinds and the idle shade only).
  void setRun(const trace::RunTrace* run);
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  // Where entry i's swatch is painted at `width` (the widget's own by default).
  std::vector<QRect> swatchRects(int width = -1) const;
  const std::vector<LegendEntry>& entries() const { return entries_; }
  // Painting the short labels: the widget has less height than the full ones need at its width.
  bool compact() const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  bool dark() const;
  // Swatch rects and label origins for `width`.
  struct Layout {
    std::vector<QRect> swatches;
    std::vector<QPoint> labels;
    std::vector<QString> texts;
    int height = 0;
  };
  Layout layoutFor(int width, bool compact) const;
  void rebuild();

  std::vector<LegendEntry> entries_;
  LegendFills fills_;
};

}  // namespace ps::ui
