// Issue 34 item 11: a Papers run is named after its system ("BPipe", not "1f1b p=8 m=16"), and
// loading presets no longer appends runs to whatever file is open (seven went into a CLI-made
// file): they go to the scratch session, and the file the user had open keeps its runs.

#include <gtest/gtest.h>

#include <QAction>
#include <QTest>

#include "runtime/run/Presets.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/SessionFiles.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(PapersRuns, APresetRunIsNamedAfterItsSystemAndGoesToTheScratchSession) {
  test::TempDir dir;
  const std::string mine = dir.file("mine.sqlite");
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(mine)));
  auto* bpipe = w.findChild<QAction*>("preset:bpipe");
  ASSERT_NE(bpipe, nullptr);
  bpipe->trigger();
  test_window::waitForRun(w);
  EXPECT_EQ(test::runsIn(mine).size(), 1u) << "the file the user opened keeps only its own run";
  EXPECT_TRUE(isScratchSession(w.currentFile())) << w.currentFile().toStdString();
  const auto scratch = test::runsIn(scratchSessionPath().toStdString());
  ASSERT_FALSE(scratch.empty());
  EXPECT_EQ(scratch.back().name, "BPipe");
  ASSERT_NE(w.timeline()->run(), nullptr);
  EXPECT_EQ(w.timeline()->run()->info.name, "BPipe");

  // A second preset joins it there, named after its system too.
  w.findChild<QAction*>("preset:bpipe-baseline")->trigger();
  test_window::waitForRun(w);
  const auto after = test::runsIn(scratchSessionPath().toStdString());
  ASSERT_EQ(after.size(), scratch.size() + 1);
  EXPECT_EQ(after.back().name, "BPipe's baseline");
  EXPECT_EQ(test::runsIn(mine).size(), 1u);
}

TEST(PapersRuns, TheNameIsTheTitleUpToItsColon) {
  auto preset = runtime::findPreset("zb-h1");
  ASSERT_TRUE(preset) << preset.error();
  EXPECT_EQ(runtime::presetRunName(*preset), "ZB-H1");
}

}  // namespace
}  // namespace ps::ui
