// The link matrix at 8, 32 and 64 ranks: rank labels thinned so they never overlap, every cell's
// figures in its tooltip. Screenshots with PIPESCOPE_UI_SHOTS=DIR.

#include <gtest/gtest.h>

#include <cstdlib>

#include "ui/DarkPalette.h"
#include "ui/LinkMatrixView.h"

namespace ps::ui {
namespace {

// A pipeline: each rank sends activations to the next and gradients back, 1 MiB per rank index.
std::vector<trace::LinkSummary> pipeline(int ranks) {
  std::vector<trace::LinkSummary> links;
  for (int r = 0; r + 1 < ranks; ++r) {
    links.push_back({r, r + 1, (std::int64_t{r} + 1) << 20, 400'000, 8});
    links.push_back({r + 1, r, (std::int64_t{r} + 1) << 19, 200'000, 8});
  }
  return links;
}

class LinkMatrixRanks : public ::testing::TestWithParam<int> {};

// Before: at 32 ranks in the dock's 320 × 240 every number was drawn in a 6 px cell, each
// over the next.
TEST_P(LinkMatrixRanks, LabelsThinOutAndNeverOverlap) {
  const int ranks = GetParam();
  LinkMatrixView view;
  view.resize(320, 240);
  view.setLinks(pipeline(ranks), ranks, 1'000'000);
  const int k = view.labelStep();
  EXPECT_EQ(k == 1, ranks <= 8) << k;
  for (int r = 0; r + k < ranks; r += k) {
    EXPECT_FALSE(view.rowLabelRect(r).intersects(view.rowLabelRect(r + k))) << r;
    EXPECT_FALSE(view.columnLabelRect(r).intersects(view.columnLabelRect(r + k))) << r;
    EXPECT_GE(view.rowLabelRect(r).top(), 0);
    EXPECT_GE(view.columnLabelRect(r).top(), 0);
  }
  // Every cell keeps its full figures in the tooltip, labelled or not.
  const int side = (240 - 28) / ranks;
  const QPoint cell(28 + 6 * side + side / 2, 28 + 5 * side + side / 2);  // row 5, column 6
  ASSERT_EQ(view.cellAt(cell), (std::pair<int, int>{5, 6}));
  EXPECT_EQ(view.toolTipAt(cell).toStdString(),
            "rank 5 → rank 6\n6.00 MiB in 8 sends\nbusy 400.000 µs (40.0 % of the run), "
            "125.83 Gb/s achieved");
  const QPoint empty(28 + 7 * side + side / 2, 28 + 2 * side + side / 2);
  EXPECT_EQ(view.toolTipAt(empty).toStdString(), "rank 2 → rank 7: nothing sent");
  EXPECT_EQ(view.toolTipAt(QPoint(10, cell.y())).toStdString(), "rank 5 sends 8.50 MiB in total");
  EXPECT_EQ(view.toolTipAt(QPoint(cell.x(), 10)).toStdString(),
            "rank 6 receives 9.50 MiB in total");
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS")) {
    view.grab().save(QString(dir) + QString("/link-matrix-%1-light.png").arg(ranks));
    view.setPalette(darkPalette());
    view.grab().save(QString(dir) + QString("/link-matrix-%1-dark.png").arg(ranks));
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, LinkMatrixRanks, ::testing::Values(8, 32, 64));

TEST(LinkMatrix, ThreeDigitRanksWidenTheGutter) {
  LinkMatrixView view;
  view.resize(600, 600);
  view.setLinks(pipeline(128), 128, 1000);
  const QRect label = view.rowLabelRect(120);
  EXPECT_GE(label.width(), view.fontMetrics().horizontalAdvance("120"));
  EXPECT_EQ(view.cellAt(QPoint(label.right() + 6, label.center().y())).first, 120);
}

}  // namespace
}  // namespace ps::ui
