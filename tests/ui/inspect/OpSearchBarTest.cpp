// The op search bar over a timeline, driven as a user would: type a query, Enter / Shift+Enter /
// the arrow buttons step through the matches in time order (the timeline's selection follows),
// the counter says where you are or the query's error, Escape clears, Ctrl+F focuses, the flow
// checkbox shows transfer arrows; big runs search after a pause in the typing.

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QContextMenuEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/inspect/OpSearchBar.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using Selection = TimelineView::Selection;
using trace::Lane;

// The bar above a timeline in one window, as the app docks them.
struct SearchBarWindow {
  QWidget host;
  OpSearchBar* bar;
  TimelineView* view;
  QLineEdit* edit;
  QLabel* count;

  explicit SearchBarWindow(std::shared_ptr<trace::RunTrace> run) {
    auto* layout = new QVBoxLayout(&host);
    bar = new OpSearchBar;
    view = new TimelineView;
    layout->addWidget(bar);
    layout->addWidget(view, 1);
    host.resize(1100, 420);
    view->setRun(std::move(run));
    bar->setTimeline(view);
    edit = host.findChild<QLineEdit*>("opSearchEdit");
    count = host.findChild<QLabel*>("opSearchCount");
    host.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&host));
  }
  void type(const QString& query) {
    QTest::keyClicks(edit, query);
    QTest::qWait(20);  // the small-run search runs from the event loop
  }
};

// F of micro-batch `mb` on rank `r` in testruns::pipeline: compute index mb.
Selection forward(int r, int mb) {
  return {r, Lane::Compute, static_cast<std::size_t>(mb)};
}

TEST(OpSearchBar, EnterStepsThroughTheMatchesInTimeOrder) {
  SearchBarWindow w(testruns::pipeline(4, 4));
  ASSERT_NE(w.host.findChild<OpSearchBar*>("opSearchBar"), nullptr);
  ASSERT_NE(w.edit, nullptr);
  ASSERT_NE(w.count, nullptr);
  EXPECT_TRUE(w.edit->placeholderText().startsWith("Search ops: kind:F mb:3 rank:2"));
  EXPECT_TRUE(w.edit->toolTip().contains("mb:2-5"));

  w.type("kind:F mb:3");
  EXPECT_EQ(w.bar->matches().size(), 4u);
  EXPECT_EQ(w.view->highlightCount(), 4u);
  EXPECT_EQ(w.count->text(), "4 matches");
  EXPECT_FALSE(w.view->selection().valid()) << "typing highlights, it does not jump";

  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.view->selection(), forward(0, 3));
  EXPECT_EQ(w.count->text(), "1 / 4");
  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.view->selection(), forward(1, 3));
  EXPECT_EQ(w.count->text(), "2 / 4");
  QTest::keyClick(w.edit, Qt::Key_Return, Qt::ShiftModifier);
  EXPECT_EQ(w.view->selection(), forward(0, 3));
  QTest::keyClick(w.edit, Qt::Key_Return, Qt::ShiftModifier);
  EXPECT_EQ(w.view->selection(), forward(3, 3)) << "previous from the first wraps to the last";
  EXPECT_EQ(w.count->text(), "4 / 4");

  auto* next = w.host.findChild<QToolButton*>("opSearchNext");
  auto* prev = w.host.findChild<QToolButton*>("opSearchPrev");
  ASSERT_TRUE(next && prev);
  QTest::mouseClick(next, Qt::LeftButton);
  EXPECT_EQ(w.view->selection(), forward(0, 3));
  QTest::mouseClick(prev, Qt::LeftButton);
  EXPECT_EQ(w.view->selection(), forward(3, 3));

  QTest::keyClick(w.edit, Qt::Key_Escape);
  EXPECT_TRUE(w.edit->text().isEmpty());
  EXPECT_EQ(w.view->highlightCount(), 0u);
  EXPECT_TRUE(w.count->text().isEmpty());
  EXPECT_FALSE(next->isEnabled());
}

TEST(OpSearchBar, ContinuesFromTheOpSelectedInTheTimeline) {
  SearchBarWindow w(testruns::pipeline(4, 4));
  w.type("kind:F mb:3");
  w.view->select(forward(2, 3));  // a click on a match
  EXPECT_EQ(w.count->text(), "3 / 4");
  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.view->selection(), forward(3, 3));
  // A click elsewhere: the next match is the first one after it in time.
  w.view->select(forward(1, 0));
  EXPECT_EQ(w.count->text(), "4 matches");
  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.view->selection(), forward(0, 3));
}

TEST(OpSearchBar, AMalformedQueryShowsItsErrorInRed) {
  SearchBarWindow w(testruns::pipeline(4, 4));
  w.type("kind:F mb:x");
  EXPECT_EQ(w.bar->error(), "mb:x: not a number");
  EXPECT_TRUE(w.count->text().contains("mb:x: not a number")) << w.count->text().toStdString();
  EXPECT_TRUE(w.count->text().contains("color:#c62828"));
  EXPECT_EQ(w.view->highlightCount(), 0u);
  QTest::keyClick(w.edit, Qt::Key_Return);  // nothing to step to: no crash, no selection
  EXPECT_FALSE(w.view->selection().valid());
  QTest::keyClick(w.edit, Qt::Key_Backspace);
  QTest::keyClicks(w.edit, "3");
  QTest::qWait(20);
  EXPECT_TRUE(w.bar->error().isEmpty());
  EXPECT_EQ(w.count->text(), "4 matches");
  w.edit->clear();
  w.type("kind:OPT");
  EXPECT_EQ(w.count->text(), "no matches");
}

TEST(OpSearchBar, CtrlFFocusesTheBoxAndTheCheckboxTogglesFlows) {
  SearchBarWindow w(testruns::pipeline(4, 4));
  w.host.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w.host));
  w.view->setFocus();
  ASSERT_EQ(w.bar->focusAction()->shortcut(), QKeySequence(QKeySequence::Find));
  QTest::keyClick(w.view, Qt::Key_F, Qt::ControlModifier);
  EXPECT_TRUE(w.edit->hasFocus());

  auto* flows = w.host.findChild<QCheckBox*>("flowToggle");
  ASSERT_NE(flows, nullptr);
  EXPECT_FALSE(w.view->flowsVisible());
  QTest::mouseClick(flows, Qt::LeftButton);
  EXPECT_TRUE(w.view->flowsVisible());
  QTest::mouseClick(flows, Qt::LeftButton);
  EXPECT_FALSE(w.view->flowsVisible());

  // The timeline's context menu toggles them too: the checkbox follows.
  QTimer::singleShot(50, [] {
    auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
    ASSERT_NE(menu, nullptr);
    for (QAction* a : menu->actions())
      if (a->text().startsWith("Show send")) a->trigger();
    menu->close();
  });
  const QPoint at(TimelineView::kGutter + 50, TimelineView::kAxis + 10);
  QContextMenuEvent menuEvent(QContextMenuEvent::Mouse, at, w.view->mapToGlobal(at));
  QApplication::sendEvent(w.view, &menuEvent);
  QTest::qWait(20);
  EXPECT_TRUE(w.view->flowsVisible());
  EXPECT_TRUE(flows->isChecked());
}

TEST(OpSearchBar, ANewRunIsSearchedAgain) {
  SearchBarWindow w(testruns::pipeline(4, 4));
  w.type("kind:F mb:3");
  EXPECT_EQ(w.bar->matches().size(), 4u);
  w.view->setRun(testruns::pipeline(8, 4));
  EXPECT_EQ(w.bar->matches().size(), 8u);
  EXPECT_EQ(w.view->highlightCount(), 8u);
  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.view->selection(), forward(0, 3));
}

TEST(OpSearchBar, BigRunsSearchAfterAPauseInTheTyping) {
  auto run = testruns::pipeline(4, 4);
  auto& lane = run->ranks[0].lane(Lane::Other);
  for (std::size_t k = 0; k < OpSearchBar::kDebounceOps; ++k)
    lane.push(100000 + 10 * k, 100000 + 10 * k + 5, trace::OpKind::OTHER, -1, -1, 0, -1, -1, -1);
  SearchBarWindow w(run);
  QTest::keyClicks(w.edit, "kind:F mb:3");
  EXPECT_TRUE(w.bar->matches().empty()) << "no search per keystroke";
  QTest::qWait(OpSearchBar::kDebounceMs + 200);
  EXPECT_EQ(w.bar->matches().size(), 4u);
  // Enter right after typing searches at once rather than stepping through stale matches.
  QTest::keyClicks(w.edit, " rank:2");
  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.bar->matches().size(), 1u);
  EXPECT_EQ(w.view->selection(), forward(2, 3));
}

TEST(OpSearchBar, FindsImportedOpsByTheirOriginalName) {
  SearchBarWindow w(testruns::nested(2));
  w.type("BACKWARD");
  EXPECT_EQ(w.count->text(), "2 matches");
  QTest::keyClick(w.edit, Qt::Key_Return);
  EXPECT_EQ(w.view->selection(), (Selection{0, Lane::Other, 1}));
  w.edit->clear();
  w.type("sgemm rank:1 kind:B");
  EXPECT_EQ(w.count->text(), "2 matches");
}

TEST(OpSearchBar, Screenshots) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (const bool dark : {false, true}) {
    testruns::usePalette(dark);
    SearchBarWindow w(testruns::pipeline(8, 8));
    w.type("kind:F mb:3");
    QTest::keyClick(w.edit, Qt::Key_Return);
    QTest::keyClick(w.edit, Qt::Key_Return);
    testruns::shot(w.host, dark ? "op-search-dark" : "op-search-light");
    w.edit->clear();
    w.type("mb:x");
    testruns::shot(*w.bar, dark ? "op-search-error-dark" : "op-search-error-light");
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
