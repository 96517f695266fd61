// Issue 34 item 4: the stage editor follows the Layers and stage-count knobs as they change, not
// only after the next run. Before: with Layers typed to 16 it still said "one layer per stage"
// and a drag did nothing; after a 16-layer run, Layers 4 and a drag sent 5,8,14 and turned Layers
// red with the CLI's words.

#include <gtest/gtest.h>

#include <QApplication>
#include <QListWidget>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include <cstdlib>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"
#include "ui/StageEditor.h"

namespace ps::ui {
namespace {

using test_window::waitForRun;

// PIPESCOPE_UI_SHOTS=DIR: the window as it is now, for a look.
void followsKnobsShot(QWidget& w, const char* name) {
  const char* dir = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!dir) return;
  QApplication::processEvents();  // laid out as a user would see it
  w.grab().save(QString(dir) + "/stage-editor-follows-" + name + ".png");
}

// Drags handle `boundary` of `editor` by `layers` layers (snapping to the nearest layer).
void followsKnobsDrag(StageEditor* editor, int boundary, int layers) {
  const int y = editor->height() - 10;
  const int from = editor->handleX(boundary);
  const double layerPx = static_cast<double>(editor->width() - 12) / editor->layerCount();
  const int to = from + static_cast<int>(layers * layerPx);
  QTest::mousePress(editor, Qt::LeftButton, {}, QPoint(from, y));
  QMouseEvent move(QEvent::MouseMove, QPointF(to, y), editor->mapToGlobal(QPointF(to, y)),
                   Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(editor, &move);
  QTest::mouseRelease(editor, Qt::LeftButton, {}, QPoint(to, y));
}

struct FollowsKnobsWindow {
  test::TempDir dir;
  MainWindow w;
  QSpinBox* layers = nullptr;
  QSpinBox* stages = nullptr;
  StageEditor* editor = nullptr;
  QListWidget* history = nullptr;

  FollowsKnobsWindow() {
    EXPECT_TRUE(w.openDemo(QString::fromStdString(dir.file("follow.sqlite"))));
    w.resize(1280, 720);
    w.show();
    layers = w.findChild<QSpinBox*>("layersSpin");
    stages = w.findChild<QSpinBox*>("stagesSpin");
    editor = w.findChild<StageEditor*>("stageEditor");
    history = w.findChild<QListWidget*>("runHistory");
  }
};

TEST(StageEditorFollowsKnobs, LayersTypedBeforeRunGiveMovableBoundaries) {
  FollowsKnobsWindow f;
  ASSERT_TRUE(f.layers && f.editor && f.history);
  ASSERT_EQ(f.editor->layerCount(), 4);  // the demo: one layer per stage
  f.layers->setValue(16);
  EXPECT_EQ(f.editor->layerCount(), 16);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{4, 8, 12}));
  EXPECT_TRUE(f.editor->hint().isEmpty()) << f.editor->hint().toStdString();
  followsKnobsShot(f.w, "layers16-before-run");
  QSignalSpy changed(f.editor, &StageEditor::boundariesChanged);
  followsKnobsDrag(f.editor, 0, 1);
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.at(0).at(0).toString().toStdString(), "5,8,12");
  waitForRun(f.w);
  ASSERT_EQ(f.history->count(), 2) << f.w.lastError().toStdString();
  EXPECT_EQ(f.editor->layerCount(), 16);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{5, 8, 12}));
  // The keyboard moves them too, before any run.
  f.layers->setValue(8);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{2, 4, 6}));
  f.editor->setFocus();
  QTest::keyClick(f.editor, Qt::Key_Right, Qt::ShiftModifier);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{3, 4, 6}));
}

TEST(StageEditorFollowsKnobs, FewerLayersAfterARunNeverSendOldBoundaries) {
  FollowsKnobsWindow f;
  ASSERT_TRUE(f.layers && f.editor && f.history);
  f.layers->setValue(16);
  f.w.findChild<PlanPanel*>()->setBoundaries("5,8,14");
  emit f.w.findChild<PlanPanel*>()->runRequested(f.w.findChild<PlanPanel*>()->request());
  waitForRun(f.w);
  ASSERT_EQ(f.history->count(), 2) << f.w.lastError().toStdString();
  ASSERT_EQ(f.editor->boundaries(), (std::vector<int>{5, 8, 14}));
  // Layers 4 on 4 stages: one layer each, nothing can move, nothing is sent.
  f.layers->setValue(4);
  EXPECT_EQ(f.editor->layerCount(), 4);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{1, 2, 3}));
  EXPECT_FALSE(f.editor->hint().isEmpty());
  followsKnobsShot(f.w, "layers4-after-16");
  QSignalSpy changed(f.editor, &StageEditor::boundariesChanged);
  followsKnobsDrag(f.editor, 0, 1);
  EXPECT_EQ(changed.count(), 0);
  // Layers 10: 5,8,14 no longer fit; an even split does (earlier stages take the remainder).
  f.layers->setValue(10);
  EXPECT_EQ(f.editor->layerCount(), 10);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{3, 6, 8}));
  followsKnobsDrag(f.editor, 2, 1);
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.at(0).at(0).toString().toStdString(), "3,6,9");
  waitForRun(f.w);
  ASSERT_EQ(f.history->count(), 3) << f.w.lastError().toStdString();
  EXPECT_FALSE(f.layers->property("invalid").toBool());
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{3, 6, 9}));
}

TEST(StageEditorFollowsKnobs, StageCountFollowsStagesAndFewerLayersThanStagesSaySo) {
  FollowsKnobsWindow f;
  ASSERT_TRUE(f.layers && f.stages && f.editor);
  f.layers->setValue(8);
  f.stages->setValue(2);
  EXPECT_EQ(f.editor->layerCount(), 8);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{4}));
  f.stages->setValue(8);
  EXPECT_EQ(f.editor->boundaries(), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  // 8 stages of 6 layers cannot be cut: no handle to drag, and the editor says why.
  f.layers->setValue(6);
  EXPECT_TRUE(f.editor->boundaries().empty());
  EXPECT_TRUE(f.editor->hint().contains("fewer layers")) << f.editor->hint().toStdString();
  followsKnobsShot(f.w, "fewer-layers-than-stages");
}

}  // namespace
}  // namespace ps::ui
