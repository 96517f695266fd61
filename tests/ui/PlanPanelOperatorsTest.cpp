// DawnPiper's --operators in the Plan panel (issue 35 item 7): a run cut between operators shows
// its model's layers and its operator count, and reruns byte for byte; its boundaries, counted
// in operators, pass the panel's check.

#include <gtest/gtest.h>

#include <QAction>

#include "runtime/run/Presets.h"
#include "runtime/run/RunConfig.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

TEST(PlanPanelOperators, ARunCutBetweenOperatorsRerunsAsItRan) {
  auto preset = runtime::findPreset("dawnpiper");
  ASSERT_TRUE(preset.ok()) << preset.error();
  auto built = runtime::buildPlan(preset->spec);
  ASSERT_TRUE(built.ok()) << built.error();
  auto shown = runtime::requestFromConfigJson(built->configJson);
  ASSERT_TRUE(shown.ok()) << shown.error();
  PlanPanel panel;
  panel.showRequest(*shown);
  const auto again = panel.request();
  EXPECT_EQ(again.spec.operators, 4);
  EXPECT_EQ(again.spec.layers, 30);
  auto rebuilt = runtime::buildPlan(again.spec);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error();
  EXPECT_EQ(rebuilt->configJson, built->configJson);
  EXPECT_FALSE(panel.problem().has_value()) << panel.problem()->message;
}

TEST(PlanPanelOperators, ThePapersPresetRunsAndItsPlanPassesThePanelsCheck) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("dawn.sqlite"))));
  w.findChild<QAction*>("preset:dawnpiper")->trigger();
  test_window::waitForRun(w);
  auto* panel = w.findChild<PlanPanel*>("planPanel");
  ASSERT_NE(panel, nullptr);
  EXPECT_EQ(panel->request().spec.operators, 4);
  EXPECT_FALSE(panel->problem().has_value()) << panel->problem()->message;
}

TEST(PlanPanelOperators, AFileWithSuchARunShowsItsPlanWithoutAProblem) {
  test::TempDir dir;
  const std::string path = dir.file("dawn.sqlite");
  auto preset = runtime::findPreset("dawnpiper");
  ASSERT_TRUE(preset.ok()) << preset.error();
  runtime::RunPlanRequest request;
  request.spec = preset->spec;
  auto written = runtime::runPlan(request, {path}, {});
  ASSERT_TRUE(written.ok()) << written.error();
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false));
  test_window::waitForRun(w);
  auto* panel = w.findChild<PlanPanel*>("planPanel");
  ASSERT_NE(panel, nullptr);
  EXPECT_EQ(panel->request().spec.operators, 4);
  EXPECT_FALSE(panel->problem().has_value()) << panel->problem()->message;
}

}  // namespace
}  // namespace ps::ui
