// Timeline export draws a clean figure (issue 34 item 19): light palette whatever the app's, no
// selection, range band, pins nor the gutter's collapse/pin marks, and an idle-cause key under
// the kind legend; the legend names the lighter (chunk 1) and hatched (second direction) fills
// when the run has them (item 20). PIPESCOPE_UI_SHOTS=DIR keeps the exported PNG.

#include <gtest/gtest.h>

#include <QFile>
#include <QImage>

#include <cstdlib>

#include "tests/common/TestUtil.h"
#include "tests/ui/TimelineTestRuns.h"
#include "trace/analysis/BubbleAttribution.h"
#include "ui/DarkPalette.h"
#include "ui/LegendWidget.h"
#include "ui/LoadedRun.h"
#include "ui/TimelineExport.h"
#include "ui/timeline/RankGutter.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// A dark view of a Chimera run with everything a user leaves on screen: a selection, a range
// band, a pinned track and a collapsed one.
struct ExportCleanScene {
  std::shared_ptr<const LoadedRun> run =
      analyseInMemory({}, testruns::pipeline(4, 6, testruns::Shape::Chimera));
  TimelineView view;
  ExportCleanScene() {
    view.setPalette(darkPalette());
    view.resize(900, 320);
    view.setRun(run->trace, run->analysis.steps);
    view.setExplanation(run->why);
    view.select({0, trace::Lane::Compute, 1});
    view.setRangeBand({2000, 5000});
    view.setTrackPinned(2, true);
    view.setTrackCollapsed(3, true);
  }
};

TEST(TimelineExportClean, TheSvgHasNoUiStateAndCarriesTheIdleCauseKey) {
  ExportCleanScene s;
  ASSERT_TRUE(s.view.selection().valid());
  test::TempDir dir;
  const QString svg = QString::fromStdString(dir.file("t.svg"));
  ASSERT_TRUE(exportTimelineFile(s.view, *s.run, svg));
  QFile file(svg);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(file.readAll());
  const QPalette dark = darkPalette();
  for (QPalette::ColorRole role : {QPalette::Highlight, QPalette::Base, QPalette::Window})
    EXPECT_FALSE(text.contains(dark.color(role).name(), Qt::CaseInsensitive))
        << "dark palette colour " << dark.color(role).name().toStdString();
  EXPECT_FALSE(text.contains("Δ")) << "the range band's readout";
  EXPECT_TRUE(text.contains("idle, by cause"));
  for (int c = 0; c < trace::kIdleCauseCount; ++c)
    EXPECT_TRUE(text.contains(QString::fromUtf8(trace::idleCauseLabel(trace::IdleCause(c)).data())))
        << c;
  EXPECT_TRUE(text.contains("hatched: second direction")) << "Chimera's up pipeline";
}

TEST(TimelineExportClean, ThePngIsLightWithoutMarksOrSelection) {
  ExportCleanScene s;
  test::TempDir dir;
  const QString png = QString::fromStdString(dir.file("t.png"));
  ASSERT_TRUE(exportTimelineFile(s.view, *s.run, png));
  QImage image(png);
  ASSERT_FALSE(image.isNull());
  if (const char* out = std::getenv("PIPESCOPE_UI_SHOTS"))
    image.save(QString(out) + "/export-clean.png");
  const qreal dpr = image.devicePixelRatio();
  const auto at = [&](int x, int y) {
    return image.pixelColor(static_cast<int>(x * dpr), static_cast<int>(y * dpr));
  };
  EXPECT_GT(at(4, 4).lightness(), 200) << "title strip";
  EXPECT_GT(at(image.width() / dpr - 4, image.height() / dpr - 4).lightness(), 200) << "legend";
  // The gutter's mark columns hold nothing but the ground (no ▾ nor pin) over the whole view.
  constexpr int kTitle = 28;
  const QColor ground = at(2, kTitle + TimelineView::kAxis + 2);
  EXPECT_GT(ground.lightness(), 200);
  int marked = 0;
  for (int y = kTitle + TimelineView::kAxis; y < kTitle + s.view.height(); ++y)
    for (int x : {1, 4, 8, 11, TimelineView::kGutter - 9, TimelineView::kGutter - 12})
      marked += at(x, y) != ground;
  EXPECT_EQ(marked, 0) << "pixels of collapse or pin marks in the gutter";
  // Every track expanded again: the figure is the run, not the user's layout.
  int darkPixels = 0;
  for (int y = kTitle; y < kTitle + TimelineView::kAxis; ++y)
    for (int x = 0; x < TimelineView::kGutter; ++x)
      darkPixels += at(x, y).lightness() < 60;
  EXPECT_EQ(darkPixels, 0) << "the gutter above the tracks is light";
}

TEST(TimelineExportClean, TheLegendNamesLighterAndHatchedFillsWhenTheRunHasThem) {
  const auto labels = [](const trace::RunTrace& run) {
    LegendWidget legend;
    legend.setRun(&run);
    QStringList out;
    for (const LegendEntry& e : legend.entries())
      out << e.label;
    return out.join("|");
  };
  const QString plain = labels(*testruns::pipeline(4, 4));
  EXPECT_FALSE(plain.contains("lighter"));
  EXPECT_FALSE(plain.contains("hatched"));
  const QString interleaved = labels(*testruns::pipeline(4, 4, testruns::Shape::Interleaved));
  EXPECT_TRUE(interleaved.contains("lighter: model chunk 1+")) << interleaved.toStdString();
  EXPECT_FALSE(interleaved.contains("hatched"));
  const QString chimera = labels(*testruns::pipeline(4, 4, testruns::Shape::Chimera));
  EXPECT_TRUE(chimera.contains("hatched: second direction")) << chimera.toStdString();
  // The hatched swatch is painted hatched: two colours inside it.
  LegendWidget legend;
  legend.setRun(testruns::pipeline(4, 4, testruns::Shape::Chimera).get());
  legend.resize(1400, legend.heightForWidth(1400));
  const QImage image = legend.grab().toImage();
  const QRect swatch = legend.swatchRects().back();
  const qreal dpr = image.devicePixelRatio();
  QSet<QRgb> colours;
  for (int y = swatch.top(); y <= swatch.bottom(); ++y)
    for (int x = swatch.left(); x <= swatch.right(); ++x)
      colours.insert(image.pixel(static_cast<int>(x * dpr), static_cast<int>(y * dpr)));
  EXPECT_GE(colours.size(), 2);
}

}  // namespace
}  // namespace ps::ui
