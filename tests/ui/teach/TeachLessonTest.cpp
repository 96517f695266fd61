// Issue 34 (Teach): each classic preset has a lesson whose steps highlight the ops they name.

#include <gtest/gtest.h>

#include <QTest>

#include <QAction>
#include <QDockWidget>

#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/TimelineTestRuns.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/TeachPanel.h"
#include "ui/teach/LessonBox.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::Lane;
using trace::OpKind;

TeachPanel* lessonWindow(MainWindow& w, const std::string& path, const char* preset) {
  if (!w.openDemo(QString::fromStdString(path))) return nullptr;
  w.resize(1280, 720);
  w.show();
  if (QAction* a = w.findChild<QAction*>(QString("preset:") + preset)) {
    a->trigger();
    test_window::waitForRun(w);
  }
  w.findChild<QDockWidget*>("teachDock")->raise();
  QApplication::processEvents();
  return w.findChild<TeachPanel*>("teachPanel");
}

TEST(TeachLesson, EveryClassicScheduleHasOne) {
  for (const char* s : {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "dualpipe-v"}) {
    const Lesson* l = lessonFor(s);
    ASSERT_NE(l, nullptr) << s;
    EXPECT_GE(l->steps.size(), 2u) << s;
    EXPECT_LE(l->steps.size(), 3u) << s;
  }
}

// Every step of every lesson names ops its preset's run has (the texts name ops of p = 4, m = 8).
TEST(TeachLesson, EveryStepNamesOpsOfItsPresetsRun) {
  for (const Lesson& lesson : classicLessons()) {
    const auto request = runtime::presetRequest(lesson.schedule);
    ASSERT_TRUE(request.ok()) << lesson.schedule;
    const auto preview = runtime::previewPlan(request.value());
    ASSERT_TRUE(preview.ok()) << lesson.schedule;
    const trace::RunTrace& run = *preview.value().trace;
    ASSERT_EQ(run.info.schedule.value_or(""), lesson.schedule);
    for (std::size_t k = 0; k < lesson.steps.size(); ++k)
      EXPECT_FALSE(lessonOps(run, lesson.steps[k]).empty()) << lesson.schedule << " step " << k;
  }
}

TEST(TeachLesson, AStepHighlightsTheOpsItNames) {
  test::TempDir dir;
  MainWindow w;
  TeachPanel* teach = lessonWindow(w, dir.file("lesson.sqlite"), "zb-h1");
  ASSERT_NE(teach, nullptr);
  TimelineView* view = w.timeline();
  ASSERT_EQ(view->run()->info.schedule.value_or(""), "zb-h1");
  LessonBox* lesson = teach->lessonBox();
  ASSERT_NE(lesson->lesson(), nullptr);
  EXPECT_EQ(lesson->step(), -1);
  EXPECT_EQ(view->highlightCount(), 0u);
  lesson->next();  // step 1: I0 and W0 on every rank
  EXPECT_TRUE(lesson->text().contains("I, the input gradient")) << lesson->text().toStdString();
  EXPECT_EQ(view->highlightCount(), 8u);
  lesson->next();  // step 2: W4..W7 on ranks 3 and 2
  EXPECT_EQ(view->highlightCount(), 8u);
  testruns::shot(w, "teach-lesson-zb-h1-step2");
  lesson->back();
  lesson->back();  // before the first step: nothing highlighted
  EXPECT_EQ(view->highlightCount(), 0u);
  // Starting the replay ends the lesson's highlight.
  lesson->next();
  ASSERT_EQ(view->highlightCount(), 8u);
  teach->setPosition(5);
  EXPECT_EQ(view->highlightCount(), 0u);
  EXPECT_EQ(lesson->step(), -1);
}

TEST(TeachLesson, TheOneF1BWarmUpStepNamesRank0sFirstFourForwards) {
  test::TempDir dir;
  MainWindow w;
  TeachPanel* teach = lessonWindow(w, dir.file("lesson1f1b.sqlite"), "1f1b");
  ASSERT_NE(teach, nullptr);
  const trace::RunTrace& run = *w.timeline()->run();
  const auto ops = lessonOps(run, teach->lessonBox()->lesson()->steps[0]);
  ASSERT_EQ(ops.size(), 6u);  // F0..F3 on rank 0, F0 and B0 on rank 3
  int rank0 = 0;
  for (const auto& op : ops)
    if (op.rank == 0) {
      const auto& c = run.ranks[0].lane(Lane::Compute);
      EXPECT_EQ(c.kind[op.index], OpKind::F);
      EXPECT_LE(c.microbatch[op.index], 3);
      ++rank0;
    }
  EXPECT_EQ(rank0, 4);
  teach->lessonBox()->next();
  EXPECT_EQ(w.timeline()->highlightCount(), 6u);
  // Hiding the dock gives the timeline back undimmed.
  w.findChild<QDockWidget*>("statsDock")->raise();
  QTest::qWait(20);
  ASSERT_TRUE(teach->visibleRegion().isEmpty());  // the Stats tab is in front
  EXPECT_EQ(w.timeline()->highlightCount(), 0u);
}

}  // namespace
}  // namespace ps::ui
