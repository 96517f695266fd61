#include "ui/TimelineArea.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/LoadedRun.h"
#include "ui/MemoryView.h"
#include "ui/inspect/OpSearchBar.h"
#include "ui/timeline/TimelinePanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

QString timelineTitle(const LoadedRun& run, const QString& prefix) {
  const auto& info = run.trace->info;
  QString text = QString("%1 · %2 · %3")
                     .arg(info.id >= 0 ? QString("run %1").arg(info.id) : QString("unsaved run"))
                     .arg(QString::fromStdString(info.name))
                     .arg(QString::fromStdString(info.source));
  return prefix.isEmpty() ? text : prefix + " · " + text;
}

TimelineArea::TimelineArea(QWidget* parent) : QWidget(parent) {
  setObjectName("timelineArea");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  split_ = new QSplitter(Qt::Vertical, this);
  split_->setObjectName("timelineSplitter");
  split_->setChildrenCollapsible(false);
  split_->setHandleWidth(6);
  layout->addWidget(split_);

  primary_ = new TimelinePanel(this);
  search_ = new OpSearchBar(this);
  search_->setTimeline(primary_->view());
  primary_->setToolbar(search_);
  compared_ = new TimelinePanel(this);
  compared_->setObjectName("compareTimelinePanel");
  compared_->view()->setObjectName("compareTimelineView");
  // The primary header also holds the search bar: the same header height for both, so that
  // equal panels mean equal timelines.
  if (auto* title = compared_->findChild<QLabel*>("timelineTitle")) {
    title->setObjectName("compareTimelineTitle");
    title->setMinimumHeight(search_->sizeHint().height());
  }
  compared_->setVisible(false);
  // The memory plot lines up with the timelines' plots, which give the panel's scroll bar its
  // width on the right.
  auto* memoryBox = new QWidget(this);
  auto* memoryLayout = new QHBoxLayout(memoryBox);
  memoryLayout->setContentsMargins(0, 0, primary_->verticalScrollBar()->sizeHint().width(), 0);
  memory_ = new MemoryView(memoryBox);
  memoryLayout->addWidget(memory_);
  split_->addWidget(primary_);
  split_->addWidget(compared_);
  split_->addWidget(memoryBox);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 3);
  split_->setStretchFactor(2, 1);

  // One time axis: each view follows the other (the equality check ends the ping-pong).
  auto follow = [](TimelineView* from, TimelineView* to) {
    connect(from, &TimelineView::rangeChanged, to, [from, to](TimeRange r) {
      if (to->isHidden() || !to->run() || !from->run()) return;
      const TimeRange mine = to->visibleRange();
      if (mine.start != r.start || mine.end != r.end) to->setVisibleRange(r);
    });
  };
  follow(timeline(), compareTimeline());
  follow(compareTimeline(), timeline());
  connect(timeline(), &TimelineView::rangeChanged, memory_, &MemoryView::setVisibleRange);
  // The memory tracks scroll with the timeline's: its first scrolled rank on top of both.
  connect(timeline(), &TimelineView::verticalScrollChanged, this, &TimelineArea::syncMemoryScroll);
  connect(timeline(), &TimelineView::criticalPathVisibleChanged, compareTimeline(),
          &TimelineView::setCriticalPathVisible);
}

void TimelineArea::syncMemoryScroll() {
  for (int rank : timeline()->visibleRanks())
    if (!timeline()->isTrackPinned(rank)) return memory_->showRanksFrom(rank);
}

TimelineView* TimelineArea::timeline() const {
  return primary_->view();
}

TimelineView* TimelineArea::compareTimeline() const {
  return compared_->view();
}

// Equal heights for the two timelines, the memory tracks keep a fifth. Full-height tracks when
// every rank of both runs fits so, else compact ones (a 4-rank run at 1280×720), and when even
// those do not fit the memory tracks give way down to a few rows. Before the first layout (a
// window not shown yet) there is no height to share: the next resize does it.
void TimelineArea::equalizeHeights() {
  const int total = split_->height() - 2 * split_->handleWidth();
  if (!equalizePending_ || total <= 0) return;
  equalizePending_ = false;
  constexpr int kLeastMemory = 60;
  int memory = std::max(kLeastMemory, total / 5);
  int pane = (total - memory) / 2;
  // The header (title, search bar) above each view: the same in both panes.
  const int header = std::max(0, primary_->height() - timeline()->height());
  const auto need = [&](bool compact) {
    timeline()->setCompactTracks(compact);
    compareTimeline()->setCompactTracks(compact);
    return header + 2 +
           std::max(timeline()->heightForAllTracks(), compareTimeline()->heightForAllTracks());
  };
  // Memory gives way only where that shows every rank (a 64-rank run scrolls either way).
  if (const int compact = pane < need(false) ? need(true) : 0;
      pane < compact && compact <= (total - kLeastMemory) / 2) {
    pane = compact;
    memory = total - 2 * pane;
  }
  split_->setSizes({pane, pane, memory});
}

void TimelineArea::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (comparing()) {
    equalizePending_ = true;
    equalizeHeights();
  }
}

bool TimelineArea::comparing() const {
  return !compared_->isHidden();
}

void TimelineArea::showRun(const std::shared_ptr<const LoadedRun>& run) {
  compared_->setVisible(false);
  compareTimeline()->setRun(nullptr);
  timeline()->setCompactTracks(false);
  if (!run) return;
  primary_->setTitle(timelineTitle(*run, {}));
  timeline()->setRun(run->trace, run->analysis.steps);
  timeline()->setExplanation(run->why);
  memory_->setRun(run->trace);
  memory_->setVisibleRange(timeline()->visibleRange());
  syncMemoryScroll();
}

void TimelineArea::retitle(const LoadedRun& run) {
  primary_->setTitle(timelineTitle(run, comparing() ? "A" : QString()));
}

void TimelineArea::retitleCompared(const LoadedRun& run) {
  if (comparing()) compared_->setTitle(timelineTitle(run, "B"));
}

void TimelineArea::growRun(const std::shared_ptr<const LoadedRun>& run) {
  primary_->setTitle(timelineTitle(*run, {}));
  timeline()->growRun(run->trace, run->analysis.steps);
  timeline()->setExplanation(run->why);
  memory_->setRun(run->trace);
  memory_->setVisibleRange(timeline()->visibleRange());
  syncMemoryScroll();
}

bool TimelineArea::clearRangeBands() {
  bool cleared = false;
  for (TimelineView* view : {timeline(), compareTimeline()})
    if (view->hasRangeBand()) {
      view->setRangeBand({0, 0});
      cleared = true;
    }
  return cleared;
}

void TimelineArea::explain(const LoadedRun& run) {
  if (timeline()->run() == run.trace.get()) timeline()->setExplanation(run.why);
  if (compareTimeline()->run() == run.trace.get()) compareTimeline()->setExplanation(run.why);
}

void TimelineArea::showComparison(const std::shared_ptr<const LoadedRun>& a,
                                  const std::shared_ptr<const LoadedRun>& b) {
  primary_->setTitle(timelineTitle(*a, "A"));
  compared_->setTitle(timelineTitle(*b, "B"));
  if (timeline()->run() != a->trace.get()) {
    timeline()->setRun(a->trace, a->analysis.steps);
    timeline()->setExplanation(a->why);
  }
  memory_->setRun(a->trace);
  syncMemoryScroll();
  compareTimeline()->setRun(b->trace, b->analysis.steps);
  compareTimeline()->setExplanation(b->why);
  // Both panes show all of a small run's ranks (compact tracks until the layout finds room for
  // full ones), and what the View menu shows on A (the critical path) shows on B too.
  timeline()->setCompactTracks(true);
  compareTimeline()->setCompactTracks(true);
  compareTimeline()->setCriticalPathVisible(timeline()->criticalPathVisible());
  compared_->setVisible(true);
  equalizePending_ = true;
  equalizeHeights();
  const auto [a0, a1] = a->trace->timeExtent();
  const auto [b0, b1] = b->trace->timeExtent();
  const std::int64_t first = std::min(a0, b0);
  const TimeRange both = rangeFrom(first, trace::satSub(std::max(a1, b1), first));
  timeline()->setVisibleRange(both);
  compareTimeline()->setVisibleRange(both);
  memory_->setVisibleRange(both);
}

}  // namespace ps::ui
