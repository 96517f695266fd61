// The timeline at device pixel ratio 2, rendered into an image: geometry identical to 1x (every
// 2x2 block one colour, the 1x pixel's), text drawn at device resolution (so a label cache at 1x
// scaled up would fail), the cached and the filled background identical, caches kept across
// paints that do not change them.

#include <gtest/gtest.h>

#include <QBuffer>
#include <QPainter>
#include <QPicture>
#include <QSvgGenerator>

#include <cmath>

#include "ui/timeline/DevicePixelCache.h"
#include "ui/timeline/KindPalette.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::OpKind;

// Two steps with a pause between them; wide ops, runs of tiny ops that fold, a few sends. No
// micro-batch numbers, so the plot holds no text.
std::shared_ptr<trace::RunTrace> mixedRun() {
  auto run = std::make_shared<trace::RunTrace>();
  run->info.num_ranks = 3;
  run->ranks.resize(3);
  for (int r = 0; r < 3; ++r) {
    auto& lane = run->ranks[r].lane(trace::Lane::Compute);
    auto& send = run->ranks[r].lane(trace::Lane::Send);
    std::int64_t t = r * 50;
    for (int k = 0; k < 160; ++k) {
      const int step = k < 80 ? 0 : 1;
      if (k == 80) t += 9000;
      lane.push(t, t + 400, k % 2 ? OpKind::B : OpKind::F, r, -1, step, -1, -1, -1);
      if (k % 7 == 0) send.push(t + 400, t + 700, OpKind::SEND_F, r, -1, step, r + 1, 64, -1);
      t += 400 + (k % 3) * 60;
      if (k % 4 == 0)
        for (int j = 0; j < 30; ++j, t += 7)
          lane.push(t, t + 5, OpKind::W, r, -1, step, -1, -1, -1);
      t += 30;
    }
  }
  return run;
}

QImage renderAt(TimelineView& view, double dpr) {
  QImage image(view.size() * dpr, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(dpr);
  image.fill(Qt::magenta);
  QPainter p(&image);
  view.render(&p);
  return image;
}

struct Fixture {
  TimelineView view;
  Fixture() {
    view.resize(800, 200);
    view.setRun(mixedRun());
  }
};

TEST(TimelineHiDpi, PlotAtTwiceTheResolutionIsTheSameGeometryWithSharpEdges) {
  Fixture f;
  const QImage one = renderAt(f.view, 1), two = renderAt(f.view, 2);
  ASSERT_EQ(two.size(), one.size() * 2);
  QSet<QRgb> colours;
  int mismatches = 0;
  for (int y = TimelineView::kAxis; y < one.height(); ++y)
    for (int x = TimelineView::kGutter; x < one.width(); ++x) {
      const QRgb want = one.pixel(x, y);
      colours.insert(want);
      for (int d = 0; d < 4; ++d)
        mismatches += two.pixel(2 * x + d % 2, 2 * y + d / 2) != want;
    }
  EXPECT_EQ(mismatches, 0) << "device pixels differing from their logical pixel";
  // Base, bubble, grid on each, F, B, W, sends: a real picture, not a blank one.
  EXPECT_GE(colours.size(), 7);
  EXPECT_FALSE(colours.contains(QColor(Qt::magenta).rgb())) << "pixels left unpainted";
}

TEST(TimelineHiDpi, RankLabelsAreDrawnAtDeviceResolution) {
  Fixture f;
  const QImage one = renderAt(f.view, 1), two = renderAt(f.view, 2);
  // Glyphs rendered at 2x have detail inside 2x2 blocks; a 1x label image scaled up has none.
  int detailed = 0, inked = 0;
  const QRgb base = one.pixel(2, TimelineView::kAxis);
  for (int y = 0; y < one.height(); ++y)
    for (int x = 0; x < TimelineView::kGutter; ++x) {
      inked += one.pixel(x, y) != base;
      const QRgb a = two.pixel(2 * x, 2 * y);
      detailed += a != two.pixel(2 * x + 1, 2 * y) || a != two.pixel(2 * x, 2 * y + 1) ||
                  a != two.pixel(2 * x + 1, 2 * y + 1);
    }
  EXPECT_GT(inked, 50) << "the labels are there at 1x";
  EXPECT_GT(detailed, 50) << "the labels are sharper at 2x";
}

TEST(TimelineHiDpi, CachedAndFilledBackgroundsAreTheSame) {
  Fixture f;
  const QImage cached = renderAt(f.view, 1);
  // A QPicture is not a raster target: the view fills instead of blitting its caches.
  QPicture picture;
  QPainter recorder(&picture);
  f.view.render(&recorder);
  recorder.end();
  QImage filled(f.view.size(), QImage::Format_ARGB32_Premultiplied);
  filled.fill(Qt::magenta);
  QPainter player(&filled);
  picture.play(&player);
  player.end();
  int differing = 0;
  for (int y = TimelineView::kAxis; y < cached.height(); ++y)
    for (int x = TimelineView::kGutter; x < cached.width(); ++x)
      differing += cached.pixel(x, y) != filled.pixel(x, y);
  EXPECT_EQ(differing, 0);
}

TEST(TimelineHiDpi, CachesAreRedrawnOnlyWhenTheirContentChanges) {
  Fixture f;
  (void)renderAt(f.view, 1);
  const int first = f.view.cacheRedraws();
  EXPECT_EQ(first, 2) << "gutter and plain strip";
  (void)renderAt(f.view, 1);
  EXPECT_EQ(f.view.cacheRedraws(), first) << "nothing changed";
  const auto r = f.view.visibleRange();
  f.view.setVisibleRange({r.start + r.length() / 3, r.end});
  (void)renderAt(f.view, 1);
  EXPECT_EQ(f.view.cacheRedraws(), first + 1) << "new grid columns; the labels stay";
  (void)renderAt(f.view, 2);
  EXPECT_EQ(f.view.cacheRedraws(), first + 3) << "both again at the new scale";
}

class OpsOnPixelBoundaries : public ::testing::TestWithParam<double> {};

// 10 ns per px: ops starting and ending on pixel boundaries fill exactly their pixels, less the
// seam; a 0.5 px op still gets its pixel, over the grid column it lands on. At any ratio.
TEST_P(OpsOnPixelBoundaries, FillExactlyTheirPixels) {
  const double dpr = GetParam();
  auto run = std::make_shared<trace::RunTrace>();
  run->ranks.resize(1);
  auto& lane = run->ranks[0].lane(trace::Lane::Compute);
  lane.push(100, 200, OpKind::F, 0, -1, 0, -1, -1, -1);
  lane.push(200, 300, OpKind::B, 0, -1, 0, -1, -1, -1);
  lane.push(1000, 1005, OpKind::W, 0, -1, 0, -1, -1, -1);
  TimelineView view;
  view.resize(TimelineView::kGutter + 400 + 8, 120);  // a 400 px plot
  view.setRun(run);
  view.setVisibleRange({0, 4000});
  const QImage image = renderAt(view, dpr);
  const int y = TimelineView::kAxis + 4 + TimelineView::kCompute / 2;
  auto at = [&](int x) {  // the logical pixel's centre; at whole ratios, its whole block
    const double left = (TimelineView::kGutter + x) * dpr, top = y * dpr;
    const QRgb c = image.pixel(static_cast<int>(left + dpr / 2), static_cast<int>(top + dpr / 2));
    const int whole = dpr == std::floor(dpr) ? static_cast<int>(dpr) : 0;
    for (int d = 0; d < whole * whole; ++d) {
      EXPECT_EQ(image.pixel(static_cast<int>(left) + d % whole, static_cast<int>(top) + d / whole),
                c)
          << "x " << x;
    }
    return QColor(c);
  };
  const QColor f = kindColor(OpKind::F), b = kindColor(OpKind::B), w = kindColor(OpKind::W);
  EXPECT_NE(at(9), f);
  for (int x = 10; x <= 18; ++x)
    EXPECT_EQ(at(x), f) << "x " << x;
  EXPECT_NE(at(19), f) << "seam";
  EXPECT_NE(at(19), b) << "seam";
  for (int x = 20; x <= 28; ++x)
    EXPECT_EQ(at(x), b) << "x " << x;
  EXPECT_NE(at(29), b) << "seam";
  EXPECT_EQ(at(100), w) << "on the grid column at 1000 ns";
  EXPECT_NE(at(101), w);
  EXPECT_NE(at(99), w);
}

INSTANTIATE_TEST_SUITE_P(Ratios, OpsOnPixelBoundaries, ::testing::Values(1.0, 2.0, 1.5));

struct ScaleCase {
  double dpr;
  int blitScale;
};

class BlitScale : public ::testing::TestWithParam<ScaleCase> {};

TEST_P(BlitScale, WholeNumberRasterScalesOnly) {
  const auto c = GetParam();
  QImage image(QSize(40, 30) * c.dpr, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(c.dpr);
  QPainter p(&image);
  EXPECT_EQ(DevicePixelCache::blitScale(p), c.blitScale);
  p.translate(0.5, 0);
  const double dx = 0.5 * c.dpr;  // device pixels
  EXPECT_EQ(DevicePixelCache::blitScale(p), dx == std::floor(dx) ? c.blitScale : 0);
  p.resetTransform();
  p.rotate(10);
  EXPECT_EQ(DevicePixelCache::blitScale(p), 0);
}

INSTANTIATE_TEST_SUITE_P(Ratios, BlitScale,
                         ::testing::Values(ScaleCase{1, 1}, ScaleCase{2, 2}, ScaleCase{3, 3},
                                           ScaleCase{1.5, 0}, ScaleCase{1.25, 0}));

TEST(DevicePixelCache, ImageHasTheScaleAndTheFontResolutionOfTheWidget) {
  QImage target(10, 10, QImage::Format_RGB32);
  target.setDotsPerMeterX(4724);  // 120 dpi
  target.setDotsPerMeterY(4724);
  DevicePixelCache cache;
  int draws = 0;
  const QImage& image = cache.image(7, {30, 20}, 2, target, [&](QPainter&) { ++draws; });
  EXPECT_EQ(image.size(), QSize(60, 40));
  EXPECT_EQ(image.devicePixelRatio(), 2.0);
  EXPECT_EQ(image.logicalDpiX(), 120);
  (void)cache.image(7, {30, 20}, 2, target, [&](QPainter&) { ++draws; });
  EXPECT_EQ(draws, 1);
  (void)cache.image(8, {30, 20}, 2, target, [&](QPainter&) { ++draws; });
  EXPECT_EQ(draws, 2);
}

TEST(DevicePixelCache, NoBlittingIntoSvg) {
  QSvgGenerator svg;
  QByteArray bytes;
  QBuffer buffer(&bytes);
  svg.setOutputDevice(&buffer);
  QPainter p(&svg);
  EXPECT_EQ(DevicePixelCache::blitScale(p), 0);
}

}  // namespace
}  // namespace ps::ui
