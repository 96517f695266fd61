// The details panel follows the timeline's selection: the op's fields in readable units, bytes,
// peer and bandwidth for transfers, its dependencies in and out as links; following a link (Tab
// to it, Enter, as with the mouse) moves the timeline's selection to that op.

#include <gtest/gtest.h>

#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/inspect/OpDetailsPanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using Selection = TimelineView::Selection;
using trace::Lane;

struct DetailsWindow {
  QWidget host;
  OpDetailsPanel* panel;
  TimelineView* view;
  QTextBrowser* text;

  explicit DetailsWindow(std::shared_ptr<trace::RunTrace> run) {
    auto* layout = new QHBoxLayout(&host);
    view = new TimelineView;
    panel = new OpDetailsPanel;
    layout->addWidget(view, 3);
    layout->addWidget(panel, 1);
    host.resize(1200, 420);
    view->setRun(std::move(run));
    panel->setTimeline(view);
    text = host.findChild<QTextBrowser*>("opDetailsText");
    host.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&host));
  }
  std::string shown() const { return text->toPlainText().toStdString(); }
  // Clicks the link that reads `label`, where it is drawn.
  void clickLink(const QString& label) {
    const QTextCursor found = text->document()->find(label);
    ASSERT_FALSE(found.isNull()) << label.toStdString() << " not in " << shown();
    QTextCursor at(text->document());
    at.setPosition(found.selectionStart() + 1);
    const QRect caret = text->cursorRect(at);
    QTest::mouseClick(text->viewport(), Qt::LeftButton, {}, caret.center() + QPoint(2, 0));
  }
  // The value beside `key` in the fields table ("(none)" when there is no such row).
  QString field(const QString& key) const {
    const QStringList lines = text->toPlainText().split('\n');
    for (int i = 0; i + 1 < lines.size(); ++i)
      if (lines[i].trimmed() == key) return lines[i + 1].trimmed();
    return "(none)";
  }
  // The links shown, in order.
  QStringList links() const {
    QStringList out;
    for (QTextBlock b = text->document()->begin(); b.isValid(); b = b.next())
      for (auto it = b.begin(); !it.atEnd(); ++it)
        if (it.fragment().charFormat().isAnchor()) out << it.fragment().charFormat().anchorHref();
    out.removeDuplicates();
    return out;
  }
};

bool contains(const std::string& html, const std::string& part) {
  return html.find(part) != std::string::npos;
}

TEST(OpDetailsPanel, SaysHowToSelectWhenNothingIs) {
  DetailsWindow w(testruns::pipeline(4, 4));
  ASSERT_NE(w.host.findChild<OpDetailsPanel*>("opDetailsPanel"), nullptr);
  ASSERT_NE(w.text, nullptr);
  EXPECT_EQ(w.text->toPlainText(), "No op selected — click one in the timeline");
  w.view->select({1, Lane::Compute, 2});
  EXPECT_TRUE(contains(w.shown(), "F (forward)")) << w.shown();
  w.view->select({});
  EXPECT_EQ(w.text->toPlainText(), "No op selected — click one in the timeline");
}

TEST(OpDetailsPanel, ShowsTheFieldsAndTheDependenciesOfACompute) {
  DetailsWindow w(testruns::pipeline(4, 4));
  w.view->select({1, Lane::Compute, 2});  // F of micro-batch 2 on rank 1 (stage 1)
  EXPECT_EQ(w.field("Kind"), "F (forward)") << w.shown();
  EXPECT_EQ(w.field("Rank"), "1");
  EXPECT_EQ(w.field("Stage"), "1");
  EXPECT_EQ(w.field("Micro-batch"), "2");
  EXPECT_EQ(w.field("Step"), "0");
  EXPECT_EQ(w.field("Start"), "3.000 µs");
  EXPECT_EQ(w.field("End"), "3.900 µs");
  EXPECT_EQ(w.field("Duration"), "900 ns");
  EXPECT_EQ(w.field("Bandwidth"), "(none)") << "not a transfer";
  const std::string text = w.shown();
  EXPECT_TRUE(contains(text, "Waits for (1)\n1RECV_F2 · rank 1 0 ns before")) << text;
  EXPECT_TRUE(contains(text,
                       "Waited on by (2)\n1SEND_F2 · rank 1 0 ns after\n"
                       "1B2 · rank 1 8.100 µs after"));
  EXPECT_EQ(w.links().size(), 3);
}

TEST(OpDetailsPanel, ShowsBytesPeerAndBandwidthOfATransfer) {
  DetailsWindow w(testruns::pipeline(4, 4));
  w.view->select({1, Lane::Recv, 2});  // RECV_F of micro-batch 2 from rank 0: 1 MiB in 500 ns
  EXPECT_EQ(w.field("Kind"), "RECV_F (activation receive)") << w.shown();
  EXPECT_EQ(w.field("Bytes"), "1.00 MiB");
  EXPECT_EQ(w.field("Peer"), "from rank 0");
  EXPECT_EQ(w.field("Bandwidth"), "2.10 TB/s");
  EXPECT_TRUE(contains(w.shown(), "0SEND_F2 · rank 0"));
  w.view->select({1, Lane::Send, 2});
  EXPECT_EQ(w.field("Peer"), "to rank 2");
}

TEST(OpDetailsPanel, ImportedRangesShowTheirNameAndNoRules) {
  DetailsWindow w(testruns::nested());
  w.view->select({1, Lane::Other, 1});  // the "backward" range of rank 1
  EXPECT_EQ(w.field("Kind"), "OTHER (imported work)") << w.shown();
  EXPECT_EQ(w.field("Name"), "backward");
  EXPECT_EQ(w.field("Stage"), "—");
  EXPECT_EQ(w.field("Micro-batch"), "—");
  EXPECT_EQ(w.field("Duration"), "6.000 µs");
  EXPECT_TRUE(contains(w.shown(), "Waits for (0)\nnone recorded")) << w.shown();
  EXPECT_TRUE(w.links().isEmpty());
}

TEST(OpDetailsPanel, FollowingADependencyLinkSelectsThatOpInTheTimeline) {
  DetailsWindow w(testruns::pipeline(4, 4));
  w.host.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w.host));
  w.view->select({1, Lane::Compute, 2});
  w.clickLink("1RECV_F2 · rank 1");  // "Waits for": its receive
  EXPECT_EQ(w.view->selection(), (Selection{1, Lane::Recv, 2}));
  EXPECT_TRUE(contains(w.shown(), "RECV_F (activation receive)")) << "the panel follows";
  w.clickLink("0SEND_F2 · rank 0");  // and the send on rank 0 that fed it
  EXPECT_EQ(w.view->selection(), (Selection{0, Lane::Send, 2}));
  w.clickLink("1RECV_F2 · rank 1");  // "Waited on by" of that send: back to the receive
  EXPECT_EQ(w.view->selection(), (Selection{1, Lane::Recv, 2}));
}

TEST(OpDetailsPanel, LongDependencyListsAreCut) {
  auto run = testruns::pipeline(8, 8);
  run->ranks[0]
      .lane(Lane::Compute)
      .push(1000000, 1001000, trace::OpKind::OPT, -1, -1, 0, -1, -1, -1);
  DetailsWindow w(run);
  w.view->select({0, Lane::Compute, 16});
  const std::string text = w.shown();
  EXPECT_TRUE(contains(text, "Waits for (64)")) << text;
  EXPECT_TRUE(contains(text, "… and 52 more"));
  EXPECT_EQ(w.links().size(), OpDetailsPanel::kMaxLinks);
  EXPECT_EQ(w.links().front(), "op:0:0:15") << "the input that ended last (rank 0's B7) leads";
}

TEST(OpDetailsPanel, Screenshots) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (const bool dark : {false, true}) {
    testruns::usePalette(dark);
    DetailsWindow w(testruns::pipeline(8, 8));
    w.view->select({3, Lane::Compute, 10});
    testruns::shot(*w.panel, dark ? "op-details-dark" : "op-details-light");
    w.view->select({3, Lane::Recv, 2});
    testruns::shot(*w.panel, dark ? "op-details-recv-dark" : "op-details-recv-light");
    w.view->select({});
    testruns::shot(*w.panel, dark ? "op-details-none-dark" : "op-details-none-light");
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
