// Issue 34 item 12: the Papers menu is seven family submenus (classic, zero bubble,
// bidirectional, memory, heterogeneous, sequence / MoE, asynchronous), each short enough for a
// 720 px screen, every preset in exactly one, each system's baseline right after it; loading a
// preset brings the dock with its teaching text to the front, whichever tab was there.

#include <gtest/gtest.h>

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QTabBar>
#include <QTest>

#include <map>

#include "runtime/run/Presets.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/StatsPanel.h"

namespace ps::ui {
namespace {

// The tab bar that switches between the tabified bottom docks: the one with a "Stats" tab.
QString papersMenuTestFrontTab(const MainWindow& w) {
  for (QTabBar* bar : w.findChildren<QTabBar*>()) {
    if (bar->parentWidget() != &w) continue;  // a panel's own tabs (Report / Steps)
    for (int i = 0; i < bar->count(); ++i)
      if (bar->tabText(i) == "Stats") return bar->tabText(bar->currentIndex());
  }
  return {};
}

TEST(PapersMenu, SevenShortFamilySubmenusHoldEveryPresetOnceEachBaselineAfterItsSystem) {
  MainWindow w;
  QMenu* papers = w.findChild<QMenu*>("papersMenu");
  ASSERT_NE(papers, nullptr);
  QStringList families;
  std::map<QString, int> reached;
  for (QAction* top : papers->actions()) {
    QMenu* family = top->menu();
    ASSERT_NE(family, nullptr) << "a top-level entry that is no family: "
                               << top->text().toStdString();
    families << family->title().remove('&');
    int entries = 0;
    QString previous;
    for (QAction* a : family->actions()) {
      if (a->isSeparator()) continue;
      ++entries;
      ++reached[a->objectName()];
      if (a->objectName().endsWith("-baseline")) {
        EXPECT_EQ(previous + "-baseline", a->objectName()) << "a baseline right after its system";
      }
      previous = a->objectName();
    }
    EXPECT_GE(entries, 2) << families.back().toStdString();
    EXPECT_LT(entries, 15) << families.back().toStdString();
    // Shorter than a 720 px screen (the flat menu was some 52 rows, 1200 px).
    EXPECT_LT(family->sizeHint().height(), 700) << families.back().toStdString();
    EXPECT_FALSE(top->toolTip().isEmpty()) << "what the family's papers share";
  }
  EXPECT_EQ(families, (QStringList{"Classic schedules", "Zero bubble", "Bidirectional", "Memory",
                                   "Heterogeneous", "Sequence / MoE", "Asynchronous"}));
  EXPECT_LT(papers->sizeHint().height(), 700);
  const auto& presets = runtime::builtinPresets().presets;
  EXPECT_EQ(reached.size(), presets.size());
  for (const auto& p : presets)
    EXPECT_EQ(reached[QString::fromStdString("preset:" + p.name)], 1) << p.name;
  // Two of the families, by what their papers are about.
  auto* zb = w.findChild<QMenu*>("papersFamily:Zero bubble");
  ASSERT_NE(zb, nullptr);
  EXPECT_TRUE(zb->actions().contains(w.findChild<QAction*>("preset:zb-h1")));
  auto* async = w.findChild<QMenu*>("papersFamily:Asynchronous");
  ASSERT_NE(async, nullptr);
  EXPECT_TRUE(async->actions().contains(w.findChild<QAction*>("preset:pipedream")));
}

TEST(PapersMenu, LoadingAPresetBringsItsTeachingTextToTheFront) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("front.sqlite"))));
  auto* statsDock = w.findChild<QDockWidget*>("statsDock");
  auto* exploreDock = w.findChild<QDockWidget*>("exploreDock");
  ASSERT_NE(statsDock, nullptr);
  ASSERT_NE(exploreDock, nullptr);
  exploreDock->raise();  // the user was exploring
  QTest::qWait(20);
  ASSERT_EQ(papersMenuTestFrontTab(w), "Explore");
  auto* stats = w.findChild<StatsPanel*>("statsPanel");
  ASSERT_NE(stats, nullptr);
  ASSERT_TRUE(stats->visibleRegion().isEmpty()) << "behind the Explore tab";

  w.findChild<QAction*>("preset:gpipe")->trigger();
  test_window::waitForRun(w);
  QTest::qWait(20);
  EXPECT_EQ(papersMenuTestFrontTab(w), "Stats");
  EXPECT_TRUE(statsDock->isVisible());
  EXPECT_FALSE(stats->visibleRegion().isEmpty());
  auto* text = w.findChild<QLabel*>("teachingText");
  ASSERT_NE(text, nullptr);
  EXPECT_TRUE(text->isVisible());
  EXPECT_FALSE(text->visibleRegion().isEmpty());
  EXPECT_TRUE(text->text().contains("GPipe")) << text->text().toStdString();
}

// The teaching text belongs to the preset's runs: it stayed above an imported run's report and
// above the demo after a preset had been loaded (seen driving the app, 2026-12-04).
TEST(PapersMenu, TheTeachingTextShowsOnlyWithThePresetsRun) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("teach.sqlite"))));
  auto* stats = w.findChild<StatsPanel*>("statsPanel");
  ASSERT_NE(stats, nullptr);
  EXPECT_TRUE(stats->teachingText().isEmpty());
  w.findChild<QAction*>("preset:terapipe")->trigger();
  test_window::waitForRun(w);
  EXPECT_TRUE(stats->teachingText().contains("TeraPipe")) << stats->teachingText().toStdString();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("other.sqlite"))));
  EXPECT_TRUE(stats->teachingText().isEmpty())
      << "the demo's run under TeraPipe's text: " << stats->teachingText().toStdString();
}

}  // namespace
}  // namespace ps::ui
