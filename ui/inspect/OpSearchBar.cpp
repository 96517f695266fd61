#include "ui/inspect/OpSearchBar.h"

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <tuple>

#include "ui/JobTracker.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

const char* kSyntax =
    "<b>Search ops</b> (every term must hold)<br>"
    "<code>nccl</code> &nbsp;kind or original name contains it, any case<br>"
    "<code>kind:F</code> &nbsp;exactly that kind; <code>kind:F,B</code> either<br>"
    "<code>rank:3 stage:1 mb:4 step:0</code> &nbsp;a field's value;<br>"
    "&nbsp;&nbsp;ranges and lists: <code>mb:2-5</code>, <code>rank:0,3,8-15</code><br>"
    "<code>name:allreduce</code> &nbsp;the original name only<br>"
    "<code>\"nccl:send\"</code> &nbsp;quotes for colons and spaces<br>"
    "Enter: next match &middot; Shift+Enter: previous &middot; Esc: clear &middot; Ctrl+F: "
    "search";

TimelineView::Selection toSelection(const trace::OpRef& o) {
  return {o.rank, o.lane, o.index};
}

}  // namespace

OpSearchBar::OpSearchBar(QWidget* parent) : QWidget(parent) {
  setObjectName("opSearchBar");
  edit_ = new QLineEdit(this);
  edit_->setObjectName("opSearchEdit");
  edit_->setPlaceholderText(QString::fromUtf8("Search ops: kind:F mb:3 rank:2 …"));
  edit_->setToolTip(kSyntax);
  edit_->setClearButtonEnabled(true);
  edit_->installEventFilter(this);
  count_ = new QLabel(this);
  count_->setObjectName("opSearchCount");
  count_->setTextFormat(Qt::RichText);
  count_->setMinimumWidth(fontMetrics().horizontalAdvance("00000 / 00000"));
  prev_ = new QToolButton(this);
  prev_->setObjectName("opSearchPrev");
  prev_->setArrowType(Qt::UpArrow);
  prev_->setAutoRaise(true);
  prev_->setToolTip("Previous match (Shift+Enter)");
  next_ = new QToolButton(this);
  next_->setObjectName("opSearchNext");
  next_->setArrowType(Qt::DownArrow);
  next_->setAutoRaise(true);
  next_->setToolTip("Next match (Enter)");
  flows_ = new QCheckBox("Show transfers as arrows", this);
  flows_->setObjectName("flowToggle");
  flows_->setToolTip("Draw an arrow from each send to the receive it feeds, across ranks");

  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  row->setSpacing(4);
  row->addWidget(edit_, 1);
  row->addWidget(count_);
  row->addWidget(prev_);
  row->addWidget(next_);
  row->addSpacing(12);
  row->addWidget(flows_);

  focusAction_ = new QAction("Find op", this);
  focusAction_->setObjectName("opSearchFocusAction");
  focusAction_->setShortcut(QKeySequence::Find);
  focusAction_->setShortcutContext(Qt::WindowShortcut);
  addAction(focusAction_);
  connect(focusAction_, &QAction::triggered, this, &OpSearchBar::focusSearch);

  jobs_ = std::make_unique<JobTracker>(this);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  connect(debounce_, &QTimer::timeout, this, &OpSearchBar::searchInBackground);
  connect(edit_, &QLineEdit::textEdited, this, &OpSearchBar::queryEdited);
  // The clear button and clear() change the text without an edit.
  connect(edit_, &QLineEdit::textChanged, this, [this](const QString& t) {
    if (t.isEmpty()) searchNow();
  });
  connect(prev_, &QToolButton::clicked, this, &OpSearchBar::previous);
  connect(next_, &QToolButton::clicked, this, &OpSearchBar::next);
  connect(flows_, &QCheckBox::toggled, this, [this](bool on) {
    if (timeline_) timeline_->setFlowsVisible(on);
  });
  showCount();
}

// Joins a search in flight before the widgets it would report to go.
OpSearchBar::~OpSearchBar() = default;

void OpSearchBar::setTimeline(TimelineView* timeline) {
  if (timeline_) {
    disconnect(timeline_, nullptr, this, nullptr);
    timeline_->removeEventFilter(this);
  }
  timeline_ = timeline;
  if (timeline_) {
    connect(timeline_, &TimelineView::selectionChanged, this, &OpSearchBar::followSelection);
    timeline_->installEventFilter(this);  // its context menu also toggles the flows
    syncFlows();
  }
  searchNow();
}

void OpSearchBar::focusSearch() {
  edit_->setFocus(Qt::ShortcutFocusReason);
  edit_->selectAll();
}

void OpSearchBar::queryEdited() {
  pending_ = true;
  const trace::RunTrace* run = timeline_ ? timeline_->run() : nullptr;
  // Small runs search on every keystroke; big ones wait for a pause in the typing.
  debounce_->start(run && run->opCount() > kDebounceOps ? kDebounceMs : 0);
}

void OpSearchBar::searchNow() {
  debounce_->stop();
  pending_ = false;
  ++searchGeneration_;  // a background search still running reports to no one
  if (searching_) jobs_->cancel();
  searching_ = false;
  error_.clear();
  const trace::RunTrace* run = timeline_ ? timeline_->run() : nullptr;
  searchedRun_ = run;
  std::vector<trace::OpRef> found;
  const std::string text = edit_->text().trimmed().toStdString();
  if (!text.empty()) {
    auto query = trace::parseOpQuery(text);
    if (!query)
      error_ = QString::fromStdString(query.error());
    else if (run)
      found = trace::findOps(*run, *query);
  }
  showMatches(std::move(found));
}

void OpSearchBar::searchInBackground() {
  const auto run = timeline_ ? timeline_->sharedRun() : nullptr;
  const std::string text = edit_->text().trimmed().toStdString();
  auto query = trace::parseOpQuery(text);
  // Nothing to scan (no run, an empty query, an error): at once, as before.
  if (!run || text.empty() || !query || run->opCount() <= kDebounceOps) return searchNow();
  debounce_->stop();
  pending_ = false;
  searching_ = true;
  searchedRun_ = run.get();
  error_.clear();
  const std::uint64_t generation = ++searchGeneration_;
  showCount();
  jobs_->start([this, run, generation, q = std::move(*query)](const JobTracker::Job& job) {
    auto found =
        std::make_shared<std::vector<trace::OpRef>>(trace::findOps(*run, q, job.cancelFlag()));
    const bool cancelled = job.cancelled();
    job.finish([this, run, generation, found, cancelled] {
      // Only the newest search, on the run still shown, gets to the timeline.
      if (cancelled || generation != searchGeneration_) return;
      searching_ = false;
      if (!timeline_ || timeline_->run() != run.get()) return searchNow();
      showMatches(std::move(*found));
    });
  });
}

void OpSearchBar::showMatches(std::vector<trace::OpRef> found) {
  matches_ = std::move(found);
  current_ = -1;
  if (timeline_) {
    std::vector<TimelineView::Selection> marks;
    marks.reserve(matches_.size());
    for (const auto& m : matches_)
      marks.push_back(toSelection(m));
    timeline_->setHighlights(std::move(marks));
  }
  followSelection();
  emit searched(static_cast<int>(matches_.size()));
}

void OpSearchBar::clear() {
  edit_->clear();
  searchNow();
}

void OpSearchBar::next() {
  step(1);
}

void OpSearchBar::previous() {
  step(-1);
}

void OpSearchBar::step(int delta) {
  if (pending_ || searching_ || (timeline_ && timeline_->run() != searchedRun_)) searchNow();
  const int n = static_cast<int>(matches_.size());
  if (n == 0 || !timeline_) return;
  int target;
  if (current_ >= 0) {
    target = (current_ + delta + n) % n;
  } else {
    // From the op selected in the timeline: the first match after it (or before it).
    const auto sel = timeline_->selection();
    if (!sel.valid() || !searchedRun_) {
      target = delta > 0 ? 0 : n - 1;
    } else {
      const trace::RunTrace& run = *searchedRun_;
      const auto key = [&run](int rank, trace::Lane lane, std::size_t index) {
        return std::make_tuple(run.ranks[rank].lane(lane).start[index], rank,
                               static_cast<int>(lane), index);
      };
      const auto at = key(sel.rank, sel.lane, sel.index);
      const auto it = std::lower_bound(
          matches_.begin(), matches_.end(), at,
          [&](const trace::OpRef& m, const auto& k) { return key(m.rank, m.lane, m.index) < k; });
      const int pos = static_cast<int>(it - matches_.begin());
      target = delta > 0 ? pos % n : (pos - 1 + n) % n;
    }
  }
  current_ = target;
  timeline_->centerOn(toSelection(matches_[target]));
  showCount();
}

void OpSearchBar::followSelection() {
  if (timeline_ && timeline_->run() != searchedRun_) {
    // Another run: the matches are for the old one.
    searchNow();
    return;
  }
  current_ = -1;
  if (timeline_) {
    const auto sel = timeline_->selection();
    const trace::OpRef ref{sel.rank, sel.lane, sel.index};
    if (sel.valid() && searchedRun_) {
      const trace::RunTrace& run = *searchedRun_;
      const std::int64_t start = run.ranks[sel.rank].lane(sel.lane).start[sel.index];
      auto it = std::lower_bound(matches_.begin(), matches_.end(), start,
                                 [&run](const trace::OpRef& m, std::int64_t s) {
                                   return run.ranks[m.rank].lane(m.lane).start[m.index] < s;
                                 });
      for (; it != matches_.end() && run.ranks[it->rank].lane(it->lane).start[it->index] == start;
           ++it)
        if (*it == ref) {
          current_ = static_cast<int>(it - matches_.begin());
          break;
        }
    }
  }
  showCount();
}

void OpSearchBar::showCount() {
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const int n = static_cast<int>(matches_.size());
  QString text;
  if (!error_.isEmpty()) {
    // Long errors (the list of kinds) would widen the dock: elided here, whole in the tooltip.
    const QString shown = fontMetrics().elidedText(error_, Qt::ElideRight, 420);
    text = QString("<span style=\"color:%1\">%2</span>")
               .arg(dark ? "#ff8a80" : "#c62828", shown.toHtmlEscaped());
    count_->setToolTip(error_);
  } else {
    if (searching_) {
      text = QString::fromUtf8("searching…");
    } else if (!edit_->text().trimmed().isEmpty()) {
      if (n == 0)
        text = "no matches";
      else if (current_ < 0)
        text = n == 1 ? QString("1 match") : QString("%1 matches").arg(n);
      else
        text = QString("%1 / %2").arg(current_ + 1).arg(n);
    }
    count_->setToolTip(QString());
  }
  count_->setText(text);
  prev_->setEnabled(n > 0);
  next_->setEnabled(n > 0);
}

void OpSearchBar::syncFlows() {
  if (!timeline_) return;
  const QSignalBlocker block(flows_);
  flows_->setChecked(timeline_->flowsVisible());
}

bool OpSearchBar::eventFilter(QObject* watched, QEvent* event) {
  // The type first: comparing with the QPointer casts to TimelineView, which an object being
  // destroyed (its last events pass through here) no longer is.
  if (event->type() == QEvent::ContextMenu && watched == timeline_) {
    // Its menu (which can toggle the flows) runs modally inside the timeline's own handler: run
    // that here, then look. (The view has no signal for the flows; a queued look would run in
    // the menu's event loop, before the choice.)
    static_cast<QObject*>(timeline_.data())->event(event);
    syncFlows();
    return true;
  }
  if (watched == edit_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      if (key->modifiers() & Qt::ShiftModifier)
        previous();
      else
        next();
      return true;
    }
    if (key->key() == Qt::Key_Escape) {
      if (!edit_->text().isEmpty())
        clear();
      else if (timeline_)
        timeline_->setFocus(Qt::OtherFocusReason);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void OpSearchBar::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) showCount();  // the error's red follows the palette
  QWidget::changeEvent(event);
}

}  // namespace ps::ui
