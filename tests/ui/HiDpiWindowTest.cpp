// The main window at QT_SCALE_FACTOR=2, grabbed the way `pipescope --screenshot` does: twice the
// pixels, and the timeline, memory view, stage editor and legend painted at device resolution.
// A view that drew at 1x and scaled up smoothly would add blended colours that a 1x render of
// the same widget does not have; text is left out of the comparison (glyphs differ by design).

#include <gtest/gtest.h>

#include <QApplication>
#include <QPainter>
#include <QSet>

#include "tests/common/TestUtil.h"
#include "ui/LegendWidget.h"
#include "ui/MainWindow.h"
#include "ui/MemoryView.h"
#include "ui/StageEditor.h"
#include "ui/timeline/KindPalette.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

QSet<QRgb> coloursIn(const QImage& image, const QRect& logical) {
  const double dpr = image.devicePixelRatio();
  QSet<QRgb> colours;
  const QRect r(logical.topLeft() * dpr, logical.size() * dpr);
  for (int y = r.top(); y <= r.bottom(); ++y)
    for (int x = r.left(); x <= r.right(); ++x)
      colours.insert(image.pixel(x, y));
  return colours;
}

// Colours in `regions` of the widget at the screen's ratio that its 1x render lacks.
QSet<QRgb> addedColours(QWidget* w, const std::vector<QRect>& regions) {
  const QImage two = w->grab().toImage();
  EXPECT_EQ(two.devicePixelRatio(), 2.0) << w->objectName().toStdString();
  QImage one(w->size(), QImage::Format_ARGB32_Premultiplied);
  QPainter p(&one);
  w->render(&p);
  p.end();
  QSet<QRgb> added;
  for (const QRect& r : regions) {
    const QSet<QRgb> have = coloursIn(one, r);
    for (QRgb c : coloursIn(two, r))
      if (!have.contains(c)) added.insert(c);
  }
  return added;
}

struct Window {
  test::TempDir dir;
  MainWindow w;
  Window() {
    EXPECT_TRUE(w.openDemo(QString::fromStdString(dir.file("demo.sqlite"))));
    w.resize(1400, 820);
    w.show();
    QApplication::processEvents();
  }
};

TEST(HiDpiWindow, ScreenshotHasTwiceThePixels) {
  Window win;
  const QPixmap shot = win.w.grab();
  EXPECT_EQ(shot.devicePixelRatio(), 2.0);
  EXPECT_EQ(shot.size(), QSize(2800, 1640));
}

TEST(HiDpiWindow, TimelineAddsNoColoursAt2x) {
  Window win;
  auto* t = win.w.findChild<TimelineView*>("timelineView");
  ASSERT_NE(t, nullptr);
  std::vector<QRect> regions;  // below each rank's label-free top rows: lanes and gaps
  const int pitch = TimelineView::kCompute + 2 * TimelineView::kComm + TimelineView::kRowGap;
  for (int top = TimelineView::kAxis + 4; top + pitch <= t->height(); top += pitch) {
    regions.emplace_back(TimelineView::kGutter, top, t->width() - TimelineView::kGutter, 2);
    regions.emplace_back(TimelineView::kGutter, top + TimelineView::kCompute,
                         t->width() - TimelineView::kGutter, pitch - TimelineView::kCompute);
  }
  ASSERT_FALSE(regions.empty());
  EXPECT_TRUE(addedColours(t, regions).isEmpty());
}

TEST(HiDpiWindow, MemoryViewAndStageEditorAddNoColoursAt2x) {
  Window win;
  auto* m = win.w.findChild<MemoryView*>("memoryView");
  auto* s = win.w.findChild<StageEditor*>("stageEditor");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(s, nullptr);
  const int g = TimelineView::kGutter;
  EXPECT_TRUE(addedColours(m, {QRect(g, 18, m->width() - g, m->height() - 18)}).isEmpty());
  EXPECT_TRUE(addedColours(s, {QRect(0, 22, s->width(), s->height() - 28)}).isEmpty());
}

TEST(HiDpiWindow, LegendIsVisibleWithExactSwatches) {
  Window win;
  auto* legend = win.w.findChild<LegendWidget*>("legend");
  ASSERT_NE(legend, nullptr);
  const int h = legend->fontMetrics().height();
  ASSERT_GE(legend->height(), h + 4) << "squeezed out of its dock";
  const QImage image = legend->grab().toImage();
  // The first swatch, F's, is QRect(4, 4, h, h - 2): every device pixel exactly F's colour.
  const QSet<QRgb> swatch = coloursIn(image, QRect(4, 4, h, h - 2));
  EXPECT_EQ(swatch, QSet<QRgb>{kindColor(trace::OpKind::F).rgb()});
}

}  // namespace
}  // namespace ps::ui
