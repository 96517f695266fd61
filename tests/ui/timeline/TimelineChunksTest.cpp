// Chunks and directions in op labels (issue 11, defect 10): interleaved and V placements put
// several stages on a rank (chunk 0, 1, ... in stage order), Chimera lists each stage twice (the
// second replica runs up). The table is read into (chunk, replica); the view labels "mb·chunk",
// shades later chunks lighter and hatches the second direction.

#include <gtest/gtest.h>

#include <QPainter>

#include <algorithm>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/KindPalette.h"
#include "ui/timeline/StageChunks.h"
#include "ui/timeline/TimelineTooltips.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using testruns::pipeline;
using testruns::Shape;
using trace::Lane;

TEST(StageChunks, InterleavedRanksHoldChunksInStageOrder) {
  // p = 2, v = 2: stages 0 1 2 3 on ranks 0 1 0 1.
  const StageChunks c({{0, 0, 0, 1}, {1, 1, 2, 3}, {2, 0, 4, 5}, {3, 1, 6, 7}});
  EXPECT_TRUE(c.marksChunks());
  EXPECT_FALSE(c.marksDirections());
  EXPECT_EQ(c.at(0, 0).chunk, 0);
  EXPECT_EQ(c.at(0, 2).chunk, 1);
  EXPECT_EQ(c.at(1, 3).chunk, 1);
  EXPECT_EQ(c.at(1, 0).chunk, 0) << "not in the table";
}

TEST(StageChunks, VShapeFoldsBackOnTheSameRanks) {
  // ZB-V, p = 2: stages 0 1 on ranks 0 1, stages 2 3 on ranks 1 0.
  const StageChunks c({{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 1, 2, 2}, {3, 0, 3, 3}});
  EXPECT_EQ(c.at(1, 2).chunk, 1);
  EXPECT_EQ(c.at(0, 3).chunk, 1);
  EXPECT_EQ(c.at(0, 0).chunk, 0);
}

TEST(StageChunks, ChimeraReplicasAreDirectionsNotChunks) {
  // p = 4: replica 0 stage s on rank s, replica 1 on rank 3 - s.
  std::vector<trace::StageRecord> rows;
  for (int s = 0; s < 4; ++s)
    rows.push_back({s, s, s, s});
  for (int s = 0; s < 4; ++s)
    rows.push_back({s, 3 - s, s, s});
  const StageChunks c(rows);
  EXPECT_FALSE(c.marksChunks()) << "one stage per rank and direction";
  EXPECT_TRUE(c.marksDirections());
  EXPECT_EQ(c.at(1, 1).replica, 0);
  EXPECT_EQ(c.at(1, 2).replica, 1);
  EXPECT_EQ(c.at(3, 0).replica, 1);
}

TEST(StageChunks, ChimeraReplicasFromTheMicroBatchesWhenTheTableComesBackSorted) {
  // The store returns the table ORDER BY stage, rank: stage 2's rows are (2, rank 1) then
  // (2, rank 2), though rank 2 holds it in the first replica. The forwards tell.
  auto run = pipeline(4, 4, Shape::Chimera);
  std::sort(run->stages.begin(), run->stages.end(), [](const auto& a, const auto& b) {
    return std::pair(a.stage, a.rank) < std::pair(b.stage, b.rank);
  });
  EXPECT_EQ(StageChunks(run->stages).at(1, 2).replica, 0) << "row order alone is wrong here";
  const StageChunks c(*run);
  EXPECT_FALSE(c.marksChunks());
  EXPECT_EQ(c.at(2, 2).replica, 0);
  EXPECT_EQ(c.at(1, 2).replica, 1);
  EXPECT_EQ(c.at(0, 3).replica, 1);
  EXPECT_EQ(c.at(0, 0).replica, 0);
}

// The colours inside an op's box, away from its label.
QSet<QRgb> coloursOf(const QImage& image, const QRect& box) {
  QSet<QRgb> out;
  for (int y = box.top() + 2; y < box.top() + 10; ++y)
    for (int x = box.left() + 2; x < box.left() + 10; ++x)
      out.insert(image.pixel(x, y));
  return out;
}

TEST(TimelineChunks, LaterChunksAreShadedAndTheTooltipNamesThem) {
  TimelineView view;
  view.resize(1400, 300);
  auto run = pipeline(2, 4, Shape::Interleaved);
  view.setRun(run);
  const auto& lane = run->ranks[0].lane(Lane::Compute);
  ASSERT_EQ(lane.stage[0], 0);
  ASSERT_EQ(lane.stage[1], 2);  // micro-batch 0, chunk 1
  const QImage image = testruns::renderView(view);
  const auto chunk0 = coloursOf(image, view.opRect({0, Lane::Compute, 0}));
  const auto chunk1 = coloursOf(image, view.opRect({0, Lane::Compute, 1}));
  EXPECT_TRUE(chunk0.contains(kindColor(trace::OpKind::F).rgb()));
  EXPECT_FALSE(chunk1.contains(kindColor(trace::OpKind::F).rgb())) << "chunk 1 is a lighter F";
  EXPECT_EQ(chunk1.size(), 1);
  const QString tip = opTooltip(*run, 0, Lane::Compute, 1, StageChunks(run->stages));
  EXPECT_TRUE(tip.contains("chunk 1")) << tip.toStdString();
}

TEST(TimelineChunks, ChimeraSecondDirectionIsHatched) {
  TimelineView view;
  view.resize(1400, 300);
  auto run = pipeline(4, 4, Shape::Chimera);
  std::sort(run->stages.begin(), run->stages.end(), [](const auto& a, const auto& b) {
    return std::pair(a.stage, a.rank) < std::pair(b.stage, b.rank);
  });  // as the store gives it back
  view.setRun(run);
  const QImage image = testruns::renderView(view);
  const auto down = coloursOf(image, view.opRect({0, Lane::Compute, 0}));
  const auto up = coloursOf(image, view.opRect({0, Lane::Compute, 1}));
  EXPECT_EQ(down.size(), 1) << "plain fill";
  EXPECT_GE(up.size(), 2) << "a hatch over the fill";
  const QString tip = opTooltip(*run, 0, Lane::Compute, 1, StageChunks(*run));
  EXPECT_TRUE(tip.contains("up pipeline")) << tip.toStdString();
}

TEST(TimelineChunks, Screenshots) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (auto [shape, name] :
       {std::pair{Shape::Interleaved, "interleaved"}, std::pair{Shape::Chimera, "chimera"}}) {
    TimelineView view;
    view.resize(1280, 4 * 46 + 40);
    view.setRun(pipeline(4, 4, shape));
    view.show();
    testruns::shot(view, QString("chunks-%1").arg(name));
  }
}

}  // namespace
}  // namespace ps::ui
