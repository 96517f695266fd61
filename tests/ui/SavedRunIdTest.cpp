// Issue 34 item 5: the Stats dock said "run -2" for a run simulated in the app (its placeholder
// id while unsaved) until the run was selected again. Once the save has begun the dock names the
// file's id; before, it says the run is unsaved instead of a negative number.

#include <gtest/gtest.h>

#include <QPlainTextEdit>
#include <QTest>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(SavedRunId, TheStatsDockNamesTheFilesIdOnceTheRunIsSaved) {
  test::TempDir dir;
  const std::string path = dir.file("ids.sqlite");
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(path)));
  runtime::RunPlanRequest request;
  request.backend = runtime::Backend::Sim;
  request.spec.schedule = "gpipe";
  request.spec.stages = 3;
  request.spec.microbatches = 5;
  w.runRequest(request);
  test_window::waitForRun(w);
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_EQ(w.timeline()->run()->info.id, runs[1].id);
  const QString stats = w.findChild<QPlainTextEdit*>("reportView")->toPlainText();
  EXPECT_TRUE(stats.contains(QString("run %1 ").arg(runs[1].id))) << stats.toStdString();
  EXPECT_FALSE(stats.contains("run -")) << stats.toStdString();
}

}  // namespace
}  // namespace ps::ui
