// Issue 34 item 13: the Explore dock's table lists the refused candidates too, greyed, unnumbered
// and not choosable, each saying why it was refused, so that "N ranked, K refused" agrees with
// the rows; and the points off the Pareto front stand out on the plot in either palette.

#include <gtest/gtest.h>

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QStyle>
#include <QTableWidget>

#include <algorithm>
#include <cmath>

#include "ui/DarkPalette.h"
#include "ui/ExplorePanel.h"
#include "ui/ParetoPlot.h"

namespace ps::ui {
namespace {

// WCAG 2 relative luminance and contrast ratio.
double exploreRefusedTestLuminance(QColor c) {
  const auto channel = [](double v) {
    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double exploreRefusedTestContrast(QColor a, QColor b) {
  const double la = exploreRefusedTestLuminance(a), lb = exploreRefusedTestLuminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The strongest contrast against `background` of any pixel drawn within 5 px of `at`.
double exploreRefusedTestStrongest(const QImage& image, QPointF at, QColor background) {
  double best = 1;
  for (int dy = -5; dy <= 5; ++dy)
    for (int dx = -5; dx <= 5; ++dx) {
      const QPoint p(static_cast<int>(std::lround(at.x())) + dx,
                     static_cast<int>(std::lround(at.y())) + dy);
      if (image.rect().contains(p))
        best = std::max(best, exploreRefusedTestContrast(image.pixelColor(p), background));
    }
  return best;
}

TEST(ExploreRefused, RefusedCandidatesAreGreyRowsThatSayWhyAndTheCountsAgree) {
  ExplorePanel panel;
  panel.resize(1000, 400);
  panel.show();
  runtime::RunPlanRequest base;
  base.spec.schedule = "1f1b";
  base.spec.stages = 4;
  base.spec.microbatches = 8;
  base.spec.layers = 4;  // the V = 2 candidates need 8 stages: refused
  base.spec.uniform.actMb = 1;
  QSignalSpy finished(&panel, &ExplorePanel::finished);
  panel.explore(base);
  ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
  ASSERT_TRUE(panel.result().has_value());
  const auto& ranked = panel.result()->ranked;
  const auto& refused = panel.result()->refused;
  ASSERT_GT(ranked.size(), 5u);
  ASSERT_GT(refused.size(), 5u);
  const int n = static_cast<int>(ranked.size()), k = static_cast<int>(refused.size());

  QTableWidget* table = panel.table();
  EXPECT_EQ(table->rowCount(), n + k);
  const auto* status = panel.findChild<QLabel*>("exploreStatus");
  ASSERT_NE(status, nullptr);
  EXPECT_TRUE(status->text().contains(
      QString("%1 candidates: %2 ranked, %3 refused").arg(n + k).arg(n).arg(k)))
      << status->text().toStdString();
  // Why, where the figures would be: from the "step" column to the end.
  int why = -1;
  for (int c = 0; c < table->columnCount(); ++c)
    if (table->horizontalHeaderItem(c)->text() == "step") why = c;
  ASSERT_GE(why, 0);
  // Ranked rows numbered 1..n, choosable; refused rows after them, unnumbered, greyed (not
  // enabled), not choosable, saying why in app words.
  const auto label = [&](int row) {
    return table->model()->headerData(row, Qt::Vertical).toString();
  };
  EXPECT_EQ(label(0), "1");
  EXPECT_EQ(label(n - 1), QString::number(n));
  EXPECT_TRUE(table->item(0, 0)->flags() & Qt::ItemIsEnabled);
  for (int r = n; r < n + k; ++r) {
    const auto& refusal = refused[static_cast<std::size_t>(r - n)];
    EXPECT_EQ(label(r), "–");
    EXPECT_FALSE(table->item(r, 0)->flags() & Qt::ItemIsEnabled);
    EXPECT_FALSE(table->item(r, 0)->flags() & Qt::ItemIsSelectable);
    EXPECT_TRUE(table->item(r, why)->text().startsWith("refused: ")) << r;
    EXPECT_EQ(table->columnSpan(r, why), table->columnCount() - why);
    EXPECT_EQ(table->item(r, 0)->text().toStdString(),
              refusal.what.substr(0, refusal.what.find(' ')));
    EXPECT_TRUE(table->item(r, 0)->toolTip().contains(QString::fromStdString(refusal.what)));
  }
  const QString layersWhy = table->item(n, why)->text();
  EXPECT_TRUE(layersWhy.contains("fewer than the plan's 8 stages")) << layersWhy.toStdString();
  EXPECT_FALSE(layersWhy.contains("--layers")) << "the app names its own controls";
  // The reason's width does not widen the "step" column it starts in.
  EXPECT_LT(table->columnWidth(why), table->fontMetrics().horizontalAdvance(layersWhy) / 2);
  // A refused row loads nothing.
  QSignalSpy chosen(&panel, &ExplorePanel::candidateChosen);
  panel.choose(n);
  EXPECT_EQ(chosen.count(), 0);
}

TEST(ExploreRefused, PointsOffTheFrontContrastWithThePlotInBothPalettes) {
  const std::vector<ParetoPoint> points{{10, 50, "a"}, {20, 30, "b"}, {20, 40, "c"},
                                        {30, 30, "d"}, {40, 10, "e"}, {35, 45, "f"}};
  for (const QPalette& palette : {darkPalette(), QApplication::style()->standardPalette()}) {
    ParetoPlot plot;
    plot.setPalette(palette);
    plot.resize(420, 260);
    plot.setPoints(points);
    const QImage image = plot.grab().toImage();
    const QColor background = palette.color(QPalette::Base);
    const auto& front = plot.front();
    for (int i = 0; i < static_cast<int>(points.size()); ++i) {
      const double contrast = exploreRefusedTestStrongest(image, plot.positionOf(i), background);
      EXPECT_GE(contrast, 3.0) << "point " << i
                               << (std::find(front.begin(), front.end(), i) != front.end()
                                       ? " (front)"
                                       : " (off the front)")
                               << " on " << background.name().toStdString();
    }
  }
}

}  // namespace
}  // namespace ps::ui
