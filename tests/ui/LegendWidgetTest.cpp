// The legend: an entry for every op kind in the timeline's colour, the idle (bubble) shade of the
// current palette, framed swatches readable on the dark palette, wrapping when narrow.
// Screenshots with PIPESCOPE_UI_SHOTS=DIR.

#include <gtest/gtest.h>

#include <QApplication>
#include <QVBoxLayout>

#include <cstdlib>
#include <set>

#include "ui/DarkPalette.h"
#include "ui/LegendWidget.h"
#include "ui/timeline/KindPalette.h"

namespace ps::ui {
namespace {

// Before: OTHER, AR, A2A, FILL, OFFLOAD and RELOAD had no entry (imported runs are mostly OTHER).
TEST(Legend, EveryOpKindHasAnEntryInItsTimelineColour) {
  for (bool dark : {false, true}) {
    std::set<int> seen;
    for (const LegendEntry& e : legendEntries(dark))
      for (trace::OpKind k : e.kinds) {
        EXPECT_TRUE(seen.insert(static_cast<int>(k)).second) << "twice: " << opKindName(k);
        EXPECT_EQ(e.colour, kindColor(k)) << opKindName(k);
      }
    for (int k = 0; k < trace::kOpKindCount; ++k)
      EXPECT_TRUE(seen.count(k)) << "no entry: " << opKindName(static_cast<trace::OpKind>(k));
    const auto entries = legendEntries(dark);
    const LegendEntry& last = entries.back();
    EXPECT_EQ(last.label.toStdString(), "idle (bubble)");
    EXPECT_TRUE(last.kinds.empty());
    EXPECT_EQ(last.colour, bubbleColor(dark));
  }
}

QColor pixel(const QImage& image, QPoint p) {
  return image.pixelColor(p);
}

// Each swatch is exactly its colour, framed by a colour that differs from the window behind it.
void expectSwatches(LegendWidget& legend, const QString& name) {
  QImage image(legend.size(), QImage::Format_ARGB32);
  image.fill(legend.palette().color(QPalette::Window));
  legend.render(&image, {}, {}, QWidget::DrawChildren);
  const QColor window = legend.palette().color(QPalette::Window);
  const auto rects = legend.swatchRects();
  ASSERT_EQ(rects.size(), legend.entries().size());
  for (std::size_t i = 0; i < rects.size(); ++i) {
    const QRect r = rects[i];
    EXPECT_TRUE(legend.rect().contains(r.adjusted(-1, -1, 1, 1))) << i << " clipped";
    EXPECT_EQ(pixel(image, r.center()), legend.entries()[i].colour) << i;
    EXPECT_EQ(pixel(image, r.topLeft()), legend.entries()[i].colour) << i;
    const QColor frame = pixel(image, r.topLeft() - QPoint(1, 1));
    EXPECT_GT(std::abs(frame.lightness() - window.lightness()), 40) << i << " frame";
  }
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS")) image.save(QString(dir) + "/" + name);
}

TEST(Legend, SwatchesAreExactAndFramedInLightAndDark) {
  QWidget box;
  auto* layout = new QVBoxLayout(&box);
  auto* legend = new LegendWidget(&box);
  layout->addWidget(legend);
  layout->addStretch(1);
  box.resize(1400, 120);
  box.show();
  QApplication::processEvents();
  expectSwatches(*legend, "legend-wide-light.png");
  box.setPalette(darkPalette());
  QApplication::processEvents();
  EXPECT_EQ(legend->entries().back().colour, bubbleColor(true)) << "follows the palette";
  expectSwatches(*legend, "legend-wide-dark.png");
}

TEST(Legend, WrapsOntoMoreRowsWhenNarrow) {
  QWidget box;
  auto* layout = new QVBoxLayout(&box);
  auto* legend = new LegendWidget(&box);
  layout->addWidget(legend);
  layout->addStretch(1);
  box.resize(420, 300);
  box.show();
  QApplication::processEvents();
  const int oneRow = legend->fontMetrics().height() + 8;
  EXPECT_EQ(legend->heightForWidth(5000), oneRow);
  EXPECT_GT(legend->height(), 2 * oneRow) << "13 entries do not fit in 420 px";
  EXPECT_EQ(legend->height(), legend->heightForWidth(legend->width()));
  for (const QRect& r : legend->swatchRects())
    EXPECT_LE(r.right(), legend->width());
  expectSwatches(*legend, "legend-narrow-light.png");
  box.setPalette(darkPalette());
  QApplication::processEvents();
  expectSwatches(*legend, "legend-narrow-dark.png");
}

// A PNG export sizes the legend to one row of the timeline's width: short labels then, not a
// second row cut off.
TEST(Legend, OneRowOfHeightFallsBackToShortLabels) {
  LegendWidget legend;
  legend.resize(900, legend.sizeHint().height());
  ASSERT_GT(legend.heightForWidth(900), legend.height()) << "full labels need two rows here";
  EXPECT_TRUE(legend.compact());
  for (const QRect& r : legend.swatchRects()) {
    EXPECT_LT(r.bottom(), legend.height());
    EXPECT_LE(r.right(), legend.width());
  }
  expectSwatches(legend, "legend-compact-light.png");
  legend.resize(5000, legend.sizeHint().height());
  EXPECT_FALSE(legend.compact());
}

}  // namespace
}  // namespace ps::ui
