// Issue 34 items 9 and 20: a single-process import whose threads share one rank (PiPPy's
// visualiser, DeepSeek's DualPipe) has ops that overlap. The rank is idle only where no row has an
// op (every row was tinted as bubble outside its own boxes: a whole lane "idle" at a 0.01 %
// bubble); no label is drawn over another where ops overlap on one row; the critical path's
// yellow stays out of the labels (white digits on it were unreadable).

#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>

#include <set>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/SceneOverlays.h"
#include "ui/timeline/TimelinePainter.h"
#include "ui/timeline/TimelineScene.h"

namespace ps::ui {
namespace {

using trace::Lane;
using trace::OpKind;
constexpr int kOverlapWidth = TimelineScene::kGutter + 1000 + TimelineScene::kRightMargin;

// Rank 0: eight staircase forwards of micro-batches 0..7, each starting before the last ends, so
// the depth rows fill up and the last row holds three ops that nearly coincide; busy without a
// gap over [0, 9000) ns, then idle until a backward at [9500, 10000). Rank 1: the same with
// names and no micro-batch, as an import has them.
std::shared_ptr<trace::RunTrace> overlappingRun() {
  auto run = std::make_shared<trace::RunTrace>();
  run->info.source = "kineto";
  run->ranks.resize(2);
  run->names = {"stage forward", "stage backward"};
  const std::int64_t starts[] = {0, 1000, 2000, 3000, 4000, 5000, 5050, 5100};
  for (int r = 0; r < 2; ++r) {
    auto& compute = run->ranks[r].lane(Lane::Compute);
    for (int k = 0; k < 8; ++k)
      compute.push(starts[k], k < 5 ? starts[k] + 3000 : 9000, OpKind::F, -1, r == 0 ? k : -1, 0,
                   -1, -1, r == 0 ? -1 : 0);
    compute.push(9500, 10000, OpKind::B, -1, r == 0 ? 0 : -1, 0, -1, -1, r == 0 ? -1 : 1);
  }
  return run;
}

struct OverlapBuilt {
  TimelineData data;
  TrackLayout layout;
  TimelineScene scene;
  explicit OverlapBuilt(std::shared_ptr<trace::RunTrace> run)
      : data(run, trace::analyzeRun(*run).steps) {
    layout.reset(2);
    for (int r = 0; r < 2; ++r)
      layout.setDepthRows(r, data.depth(r).rows());
    scene.build(data, layout, {{0, 10000}, kOverlapWidth, 600, 0});
  }
  double x(std::int64_t t) const { return scene.xOf(t); }
};

TEST(TimelineOverlap, ARankIsShadedIdleOnlyWhereNoRowHasAnOp) {
  OverlapBuilt b(overlappingRun());
  ASSERT_EQ(b.data.steps().size(), 1u);
  ASSERT_TRUE(b.data.depth(0).nested());
  ASSERT_EQ(b.data.depth(0).rows(), 6);
  int shadedPieces = 0;
  std::set<int> rowsWithIdle;
  for (const SceneGround& g : b.scene.ground()) {
    if (g.ground != Ground::Shaded && g.ground != Ground::GridOnShaded) continue;
    if (g.rect.width() == 1) continue;  // the seam after a box shows the ground, as on any lane
    ++shadedPieces;
    // Only the gap [9000, 9500) is idle, on every row of the rank.
    EXPECT_GE(g.rect.left(), static_cast<int>(b.x(9000)) - 1) << g.rect.left();
    EXPECT_LE(g.rect.right(), static_cast<int>(b.x(9500)) + 1)
        << g.rect.left() << ".." << g.rect.right();
    rowsWithIdle.insert(g.rect.top());
  }
  EXPECT_GT(shadedPieces, 0) << "the real gap is still a bubble";
  EXPECT_EQ(rowsWithIdle.size(), 12u) << "six rows on each of the two ranks";
}

TEST(TimelineOverlap, NoLabelIsDrawnOverAnother) {
  OverlapBuilt b(overlappingRun());
  QImage image(kOverlapWidth, 600, QImage::Format_ARGB32_Premultiplied);
  QPainter p(&image);
  TimelinePainter painter;
  const QPalette palette;
  const QFont font;
  painter.paint(p, b.scene, b.data, SceneOverlays{}, PaintTarget{palette, font, image});
  const auto& labels = painter.labels().labels();
  int numbers = 0, names = 0;
  for (const auto& l : labels)
    (l.name.isEmpty() ? numbers : names)++;
  EXPECT_GE(numbers, 6) << "one per row at least";
  EXPECT_GE(names, 6);
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (std::size_t j = i + 1; j < labels.size(); ++j)
      EXPECT_FALSE(labels[i].rect.intersects(labels[j].rect))
          << i << " '" << labels[i].name.toStdString() << labels[i].number.text().toStdString()
          << "' and " << j << " '" << labels[j].name.toStdString()
          << labels[j].number.text().toStdString() << "'";
}

TEST(TimelineOverlap, TheCriticalPathStaysOutOfTheLabels) {
  auto run = testruns::pipeline(2, 2);
  const auto steps = trace::analyzeRun(*run).steps;
  TimelineData data(run, steps);
  TrackLayout layout;
  layout.reset(2);
  TimelineScene scene;
  scene.build(data, layout, {{0, 7000}, kOverlapWidth, 300, 0});
  // The path through rank 0's forwards of micro-batches 0 and 1 (centre to centre).
  SceneOverlays overlays;
  std::vector<QPointF> line;
  for (const SceneBox& box : scene.boxes())
    if (box.rank == 0 && box.lane == Lane::Compute && box.kind == OpKind::F) {
      overlays.pathOps.push_back(box.drawn);
      line.push_back(QRectF(box.rect).center());
    }
  ASSERT_EQ(line.size(), 2u);
  overlays.pathLines.push_back(line);
  QImage image(kOverlapWidth, 300, QImage::Format_ARGB32_Premultiplied);
  QPainter p(&image);
  TimelinePainter painter;
  const QPalette palette;
  const QFont font;
  painter.paint(p, scene, data, overlays, PaintTarget{palette, font, image});
  p.end();
  const QRgb yellow = qRgb(240, 228, 66);
  int labelsOnPath = 0;
  for (const auto& l : painter.labels().labels()) {
    if (!overlays.pathOps[0].contains(l.rect) && !overlays.pathOps[1].contains(l.rect)) continue;
    ++labelsOnPath;
    for (int y = l.rect.top(); y <= l.rect.bottom(); ++y)
      for (int x = l.rect.left(); x <= l.rect.right(); ++x)
        ASSERT_NE(image.pixel(x, y) | 0xff000000u, yellow) << "yellow at " << x << "," << y;
  }
  EXPECT_EQ(labelsOnPath, 2);
  // The path is still drawn between them.
  const int midX = static_cast<int>((line[0].x() + line[1].x()) / 2);
  bool yellowBetween = false;
  for (int y = 0; y < 300; ++y)
    yellowBetween |= (image.pixel(midX, y) | 0xff000000u) == yellow;
  EXPECT_TRUE(yellowBetween);
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    image.save(QString(dir) + "/path-labels.png");
}

}  // namespace
}  // namespace ps::ui
