// The stage editor: no run from a boundary that did not move (and a hint when none can), stages
// of runs without layer times, labels at 32 and 64 stages, keyboard editing, handle tooltips.
// Screenshots with PIPESCOPE_UI_SHOTS=DIR.

#include <gtest/gtest.h>

#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>

#include <cstdlib>

#include "ui/DarkPalette.h"
#include "ui/StageEditor.h"

namespace ps::ui {
namespace {

void shots(StageEditor& e, const QString& name) {
  const char* dir = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!dir) return;
  e.grab().save(QString(dir) + "/stage-editor-" + name + "-light.png");
  const QPalette light = e.palette();
  e.setPalette(darkPalette());
  e.grab().save(QString(dir) + "/stage-editor-" + name + "-dark.png");
  e.setPalette(light);
}

// `stages` equal stages of `perStage` layers each, layer l costing (l % 3 + 1) µs.
void equalStages(StageEditor& e, int stages, int perStage) {
  std::vector<double> layers;
  for (int l = 0; l < stages * perStage; ++l)
    layers.push_back((l % 3 + 1) * 1000.0);
  std::vector<int> boundaries;
  for (int s = 1; s < stages; ++s)
    boundaries.push_back(s * perStage);
  e.setModel(std::move(layers), std::move(boundaries));
}

void drag(StageEditor& e, int from, int to) {
  const int y = e.height() - 10;
  QTest::mousePress(&e, Qt::LeftButton, {}, QPoint(from, y));
  QMouseEvent move(QEvent::MouseMove, QPointF(to, y), e.mapToGlobal(QPointF(to, y)), Qt::NoButton,
                   Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&e, &move);
  QTest::mouseRelease(&e, Qt::LeftButton, {}, QPoint(to, y));
}

// Before: with Layers = P·V the handle could not move, yet the release emitted (and the window
// started a run of the very same plan); nothing said why.
TEST(StageEditor, OneLayerPerStageEmitsNothingAndSaysWhy) {
  StageEditor e;
  e.resize(368, 74);
  equalStages(e, 4, 1);
  QSignalSpy changed(&e, &StageEditor::boundariesChanged);
  EXPECT_EQ(e.hint().toStdString(), "one layer per stage: raise Layers to move boundaries");
  drag(e, e.handleX(0), e.handleX(0) + 60);
  EXPECT_EQ(e.boundaries(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(changed.count(), 0);
  QTest::keyClick(&e, Qt::Key_Right, Qt::ShiftModifier);
  QTest::keyClick(&e, Qt::Key_Return);
  EXPECT_EQ(changed.count(), 0);
  EXPECT_TRUE(e.toolTipAt(QPoint(20, 40)).contains("raise Layers"));
  shots(e, "one-layer-per-stage");
  equalStages(e, 4, 2);
  EXPECT_TRUE(e.hint().isEmpty());
}

TEST(StageEditor, ReleaseWithoutMovingEmitsNothingAndAMoveEmitsOnce) {
  StageEditor e;
  e.resize(368, 74);
  equalStages(e, 4, 2);
  QSignalSpy changed(&e, &StageEditor::boundariesChanged);
  drag(e, e.handleX(1), e.handleX(1));
  EXPECT_EQ(changed.count(), 0);
  drag(e, e.handleX(1), e.handleX(1) + 45);  // one layer is 44.5 px
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.at(0).at(0).toString().toStdString(), "2,5,6");
}

// Before: a cpu or cuda run records no layer rows (their times are not this model's), and the
// editor showed "no layers" with no way to move a boundary.
TEST(StageEditor, RunWithoutLayerTimesShowsItsStagesAtEqualWidths) {
  trace::RunTrace run;
  for (int s = 0; s < 4; ++s)
    run.stages.push_back({s, s, 2 * s, 2 * s + 1});
  StageEditor e;
  e.resize(368, 74);
  e.setRun(run);
  EXPECT_EQ(e.layerCount(), 8);
  EXPECT_EQ(e.boundaries(), (std::vector<int>{2, 4, 6}));
  EXPECT_TRUE(e.hint().isEmpty());
  EXPECT_EQ(e.handleX(1) - e.handleX(0), e.handleX(2) - e.handleX(1));
  const auto labels = e.stageLabels();
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[2].text.toStdString(), "S2");  // no times to add
  QSignalSpy changed(&e, &StageEditor::boundariesChanged);
  drag(e, e.handleX(0), e.handleX(0) - 45);
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.at(0).at(0).toString().toStdString(), "1,4,6");
  shots(e, "cpu-run");
  // A timed run keeps its layer table's costs; replicas repeat a stage without a boundary.
  run.stages.push_back({1, 5, 2, 3});
  run.layers.resize(8);
  for (int l = 0; l < 8; ++l) {
    run.layers[l].layer = l;
    run.layers[l].fwd_ns = 1000;
    run.layers[l].bwd_ns = 2000;
  }
  e.setRun(run);
  EXPECT_EQ(e.boundaries(), (std::vector<int>{2, 4, 6}));
  EXPECT_EQ(e.stageLabels()[0].text.toStdString(), "S0 6.000 µs");
}

class StageEditorStages : public ::testing::TestWithParam<int> {};

// Before: at 32 stages every label was drawn, each over its neighbours.
TEST_P(StageEditorStages, LabelsThinOutAndNeverOverlap) {
  const int stages = GetParam();
  StageEditor e;
  e.resize(368, 74);
  equalStages(e, stages, 2);
  const auto labels = e.stageLabels();
  ASSERT_FALSE(labels.empty());
  EXPECT_LT(static_cast<int>(labels.size()), stages) << "thinned";
  EXPECT_EQ(labels.front().stage, 0);
  const int k = labels.size() > 1 ? labels[1].stage : stages;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    EXPECT_EQ(labels[i].stage, static_cast<int>(i) * k) << "every k-th stage";
    EXPECT_GE(labels[i].rect.left(), 0);
    EXPECT_LE(labels[i].rect.right(), e.width());
    EXPECT_EQ(labels[i].rect.width(), e.fontMetrics().horizontalAdvance(labels[i].text));
    if (i) {
      EXPECT_GT(labels[i].rect.left(), labels[i - 1].rect.right()) << i;
    }
  }
  // Every handle still has its exact place in a tooltip.
  EXPECT_EQ(e.toolTipAt(QPoint(e.handleX(stages / 2 - 1), 40)).toStdString(),
            QString("stage %1 | stage %2: layer %3")
                .arg(stages / 2 - 1)
                .arg(stages / 2)
                .arg(stages)
                .toStdString());
  shots(e, QString("%1-stages").arg(stages));
}

INSTANTIATE_TEST_SUITE_P(Stages, StageEditorStages, ::testing::Values(32, 64));

TEST(StageEditor, FourWideStagesKeepEveryLabelWithItsTotal) {
  StageEditor e;
  e.resize(368, 74);
  equalStages(e, 4, 2);
  const auto labels = e.stageLabels();
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_TRUE(labels[1].text.startsWith("S1 ")) << labels[1].text.toStdString();
}

TEST(StageEditor, KeyboardSelectsMovesAppliesAndReverts) {
  StageEditor e;
  e.resize(368, 74);
  equalStages(e, 4, 2);  // boundaries 2,4,6
  QSignalSpy changed(&e, &StageEditor::boundariesChanged);
  EXPECT_TRUE(e.focusPolicy() & Qt::TabFocus);
  QTest::keyClick(&e, Qt::Key_Right);  // nothing selected yet: the first
  EXPECT_EQ(e.selectedBoundary(), 0);
  QTest::keyClick(&e, Qt::Key_Right);
  EXPECT_EQ(e.selectedBoundary(), 1);
  QTest::keyClick(&e, Qt::Key_Right, Qt::ShiftModifier);
  QTest::keyClick(&e, Qt::Key_Plus);
  EXPECT_EQ(e.boundaries(), (std::vector<int>{2, 5, 6})) << "clamped: stage 2 keeps a layer";
  EXPECT_TRUE(e.hasPendingEdit());
  EXPECT_EQ(changed.count(), 0) << "moving is not applying";
  QTest::keyClick(&e, Qt::Key_Escape);
  EXPECT_EQ(e.boundaries(), (std::vector<int>{2, 4, 6}));
  EXPECT_FALSE(e.hasPendingEdit());
  QTest::keyClick(&e, Qt::Key_Left);
  QTest::keyClick(&e, Qt::Key_Left, Qt::ShiftModifier);
  QTest::keyClick(&e, Qt::Key_Right, Qt::ShiftModifier);
  QTest::keyClick(&e, Qt::Key_Right, Qt::ShiftModifier);
  QTest::keyClick(&e, Qt::Key_Return);
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.at(0).at(0).toString().toStdString(), "3,4,6");
  QTest::keyClick(&e, Qt::Key_Return);  // nothing new to apply
  EXPECT_EQ(changed.count(), 1);
  // The rerun's result comes back through setModel; the selection stays for the next edit.
  e.setModel(std::vector<double>(8, 1000.0), {3, 4, 6});
  EXPECT_EQ(e.selectedBoundary(), 0);
  QTest::keyClick(&e, Qt::Key_Minus);
  QTest::keyClick(&e, Qt::Key_Enter);
  ASSERT_EQ(changed.count(), 2);
  EXPECT_EQ(changed.at(1).at(0).toString().toStdString(), "2,4,6");
}

TEST(StageEditor, TabReachesTheEditorAndFocusIsVisible) {
  QWidget window;
  auto* layout = new QVBoxLayout(&window);
  auto* before = new QLineEdit(&window);
  auto* e = new StageEditor(&window);
  layout->addWidget(before);
  layout->addWidget(e);
  equalStages(*e, 4, 2);
  window.resize(380, 140);
  window.show();
  QApplication::setActiveWindow(&window);
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  before->setFocus();
  const QImage unfocused = e->grab().toImage();
  QTest::keyClick(before, Qt::Key_Tab);
  ASSERT_TRUE(e->hasFocus());
  EXPECT_EQ(e->selectedBoundary(), 0);
  const QImage focused = e->grab().toImage();
  // The frame and the selected handle in the highlight colour.
  const QColor hl = e->palette().color(QPalette::Highlight);
  EXPECT_EQ(focused.pixelColor(0, focused.height() / 2), hl);
  EXPECT_NE(unfocused.pixelColor(0, unfocused.height() / 2), hl);
  EXPECT_EQ(focused.pixelColor(e->handleX(0), e->height() - 10), hl);
  EXPECT_NE(focused.pixelColor(e->handleX(1), e->height() - 10), hl);
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    focused.save(QString(dir) + "/stage-editor-focused-light.png");
}

}  // namespace
}  // namespace ps::ui
