#include "ui/TeachPanel.h"

#include <QDockWidget>
#include <QEvent>
#include <QFontMetrics>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSlider>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

#include "trace/Units.h"
#include "trace/analysis/ActivationsInFlight.h"
#include "trace/analysis/OpWait.h"
#include "trace/analysis/PresentRanks.h"
#include "ui/LoadedRun.h"
#include "ui/teach/InFlightOverlay.h"
#include "ui/teach/LessonBox.h"
#include "ui/teach/RevealBox.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

using trace::Lane;
using trace::OpKind;

TeachPanel::TeachPanel(TimelineView* view, QWidget* parent) : QWidget(parent), view_(view) {
  setObjectName("teachPanel");
  // Three columns: a bottom dock is wide and short.
  auto* columns = new QHBoxLayout(this);
  columns->setContentsMargins(4, 4, 4, 4);
  auto* replay = new QGroupBox("Replay", this);
  replay->setObjectName("teachReplay");
  auto* layout = new QVBoxLayout(replay);
  layout->setContentsMargins(6, 4, 6, 4);
  auto* controls = new QHBoxLayout;
  auto button = [&](QStyle::StandardPixmap icon, const QString& tip, const char* name) {
    auto* b = new QToolButton(this);
    b->setIcon(style()->standardIcon(icon));
    b->setToolTip(tip);
    b->setObjectName(name);
    controls->addWidget(b);
    return b;
  };
  back_ = button(QStyle::SP_MediaSkipBackward, "Step back one op", "teachBack");
  play_ = button(QStyle::SP_MediaPlay, "Play / pause: one op after another", "teachPlay");
  play_->setCheckable(true);
  forward_ = button(QStyle::SP_MediaSkipForward, "Step forward one op", "teachForward");
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName("teachSlider");
  controls->addWidget(slider_, 1);
  layout->addLayout(controls);
  current_ = new QLabel("Open a run to step through its ops.", this);
  current_->setObjectName("teachCurrent");
  current_->setWordWrap(true);
  QFont bold = current_->font();
  bold.setBold(true);
  current_->setFont(bold);
  layout->addWidget(current_);
  why_ = new QLabel(this);
  why_->setObjectName("teachWhy");
  why_->setWordWrap(true);
  layout->addWidget(why_);
  // Ranks across (a short bottom dock has room for columns, not rows).
  table_ = new QTableWidget(2, 0, this);
  table_->setObjectName("teachTable");
  table_->setVerticalHeaderLabels({"in flight", "bubble so far"});
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Fixed widths, not ResizeToContents: that measures every column again for each cell set, so
  // opening a run took O(ranks²) (2048 ranks 27 s, 4000 ranks 101 s). buildTable sizes them once.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // As tall as its two rows: the room left goes to the sentences above it.
  table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                         2 * table_->verticalHeader()->defaultSectionSize() +
                         table_->horizontalScrollBar()->sizeHint().height() +
                         2 * table_->frameWidth());
  layout->addWidget(table_);
  layout->addStretch(1);
  columns->addWidget(replay, 4);
  reveal_ = new RevealBox(this);
  columns->addWidget(reveal_, 4);
  lesson_ = new LessonBox(this);
  columns->addWidget(lesson_, 3);
  if (view_) overlay_ = new InFlightOverlay(view_);
  timer_ = new QTimer(this);
  timer_->setInterval(400);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (position_ + 1 >= order_.size()) {
      setPlaying(false);
      return reveal_->reveal();  // the replay's end: what did it come to?
    }
    stepForward();
  });
  connect(back_, &QToolButton::clicked, this, &TeachPanel::stepBack);
  connect(forward_, &QToolButton::clicked, this, &TeachPanel::stepForward);
  connect(play_, &QToolButton::toggled, this, &TeachPanel::setPlaying);
  connect(slider_, &QSlider::valueChanged, this,
          [this](int v) { setPosition(static_cast<std::size_t>(std::max(0, v))); });
  // The reveal shows the whole run again; a lesson's step takes the timeline over.
  connect(reveal_, &RevealBox::revealedNow, this, &TeachPanel::endReplay);
  connect(lesson_, &LessonBox::stepShown, this, &TeachPanel::showLessonStep);
  setRun(nullptr);
}

void TeachPanel::showRun(const std::shared_ptr<const LoadedRun>& run) {
  if (!run || run->trace == run_) return;
  setRun(run->trace);
  // The counts on the lanes, for the runs the replay takes (a scan and a sort of the ops).
  std::shared_ptr<const trace::ActivationsInFlight> inFlight;
  if (!order_.empty())
    inFlight =
        std::make_shared<const trace::ActivationsInFlight>(trace::activationsInFlight(*run_));
  if (overlay_) overlay_->setSeries(inFlight);
  const int rank0Peak = inFlight && !inFlight->peak.empty() ? inFlight->peak[0] : -1;
  reveal_->setFacts(revealFacts(*run_, run->analysis, rank0Peak));
}

void TeachPanel::setRun(std::shared_ptr<const trace::RunTrace> run) {
  setPlaying(false);
  run_ = std::move(run);
  replaying_ = false;
  lessonOps_.clear();
  if (overlay_) overlay_->setSeries(nullptr);
  reveal_->setFacts({});
  lesson_->setSchedule(run_ && run_->info.schedule ? *run_->info.schedule : std::string());
  applyToTimeline();
  order_.clear();
  position_ = 0;
  const bool usable = run_ && run_->opCount() <= kMaxOps;
  if (usable) {
    std::vector<std::tuple<std::int64_t, int, std::size_t>> ops;
    for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
      const auto& c = run_->ranks[r].lane(Lane::Compute);
      for (std::size_t i = 0; i < c.size(); ++i)
        ops.emplace_back(c.start[i], static_cast<int>(r), i);
    }
    std::sort(ops.begin(), ops.end());
    for (const auto& [start, r, i] : ops)
      order_.push_back({r, Lane::Compute, i});
  }
  for (QWidget* w : std::initializer_list<QWidget*>{back_, play_, forward_, slider_})
    w->setEnabled(!order_.empty());
  const QSignalBlocker block(slider_);
  slider_->setRange(0, order_.empty() ? 0 : static_cast<int>(order_.size() - 1));
  slider_->setValue(0);
  if (order_.empty()) {
    current_->setText(run_ ? QString("This run has %1 ops: step-through takes runs of up to %2.")
                                 .arg(run_->opCount())
                                 .arg(kMaxOps)
                           : QString("Open a run to step through its ops."));
    why_->clear();
    columns_.clear();
    table_->setColumnCount(0);
    return;
  }
  buildTable();
  showOp(0, false);  // the timeline keeps its selection until the user steps
}

void TeachPanel::buildTable() {
  columns_.clear();
  highlighted_ = -1;
  const std::vector<bool> present = trace::presentRankMask(*run_);
  for (std::size_t r = 0; r < present.size(); ++r)
    if (present[r]) columns_.push_back(static_cast<int>(r));
  table_->setColumnCount(0);  // drops the previous run's items at once
  table_->setColumnCount(static_cast<int>(columns_.size()));
  // Wide enough for the largest rank's label and a duration like "999.999 ms".
  const int largest = columns_.empty() ? 0 : columns_.back();
  const QFontMetrics metrics(table_->font());
  const int width = std::max(metrics.horizontalAdvance(QString("rank %1").arg(largest)),
                             metrics.horizontalAdvance("999.999 ms")) +
                    16;
  table_->horizontalHeader()->setDefaultSectionSize(width);
  for (std::size_t col = 0; col < columns_.size(); ++col) {
    const int c = static_cast<int>(col);
    table_->setHorizontalHeaderItem(c, new QTableWidgetItem(QString("rank %1").arg(columns_[col])));
    for (int row = 0; row < 2; ++row) {
      auto* item = new QTableWidgetItem;
      item->setTextAlignment(Qt::AlignCenter);
      table_->setItem(row, c, item);
    }
  }
}

void TeachPanel::setPosition(std::size_t position) {
  if (order_.empty()) return;
  showOp(std::min(position, order_.size() - 1), true);
}

void TeachPanel::stepForward() {
  if (position_ + 1 < order_.size()) setPosition(position_ + 1);
}

void TeachPanel::stepBack() {
  if (position_ > 0) setPosition(position_ - 1);
}

void TeachPanel::setPlaying(bool playing) {
  if (playing && order_.empty()) playing = false;
  if (playing && position_ + 1 >= order_.size()) setPosition(0);  // play again from the start
  if (playing) {
    if (!replaying_) setPosition(position_);  // the replay begins where the slider is
    timer_->start();
  } else {
    timer_->stop();
  }
  const QSignalBlocker block(play_);
  play_->setChecked(playing);
  play_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

bool TeachPanel::playing() const {
  return timer_->isActive();
}

std::vector<TeachPanel::RankState> TeachPanel::rankStates() const {
  std::vector<RankState> out;
  if (order_.empty()) return out;
  const trace::OpRef& cur = order_[position_];
  const auto& curLane = run_->ranks[cur.rank].lane(Lane::Compute);
  const std::int64_t t = curLane.start[cur.index];
  const std::int32_t step = curLane.step[cur.index];
  // The step began at its earliest op on any rank.
  std::int64_t stepStart = t;
  for (const auto& r : run_->ranks) {
    const auto& c = r.lane(Lane::Compute);
    for (std::size_t i = 0; i < c.size() && c.start[i] < stepStart; ++i)
      if (c.step[i] == step) stepStart = c.start[i];
  }
  out.resize(run_->ranks.size());
  for (std::size_t r = 0; r < run_->ranks.size(); ++r) {
    const auto& c = run_->ranks[r].lane(Lane::Compute);
    std::int64_t busy = 0, cursor = stepStart;
    for (std::size_t i = 0; i < c.size() && c.start[i] < t; ++i) {
      if (c.kind[i] == OpKind::F) ++out[r].inFlight;
      if ((c.kind[i] == OpKind::B || c.kind[i] == OpKind::I) && c.end[i] <= t) --out[r].inFlight;
      if (c.step[i] != step) continue;
      // The union of the step's ops up to t.
      const std::int64_t s = std::max(c.start[i], cursor), e = std::min(c.end[i], t);
      if (e > s) busy += e - s;
      cursor = std::max(cursor, e);
    }
    out[r].inFlight = std::max(0, out[r].inFlight);
    out[r].idleNs = std::max<std::int64_t>(0, t - stepStart - busy);
  }
  return out;
}

QString TeachPanel::currentText() const {
  return current_->text();
}

void TeachPanel::showOp(std::size_t position, bool moveTimeline) {
  position_ = position;
  const trace::OpRef& op = order_[position];
  const auto& c = run_->ranks[op.rank].lane(Lane::Compute);
  const QString kind = QString::fromUtf8(trace::opKindName(c.kind[op.index]).data());
  QString what = kind;
  if (c.stage[op.index] >= 0 && c.microbatch[op.index] >= 0)
    what = QString("%1 of micro-batch %2 on stage %3")
               .arg(kind)
               .arg(c.microbatch[op.index])
               .arg(c.stage[op.index]);
  current_->setText(QString("op %1 of %2: rank %3 starts %4 at %5 (step %6)")
                        .arg(position + 1)
                        .arg(order_.size())
                        .arg(op.rank)
                        .arg(what)
                        .arg(QString::fromStdString(trace::formatDuration(c.start[op.index])))
                        .arg(c.step[op.index]));
  {
    const QSignalBlocker block(slider_);
    slider_->setValue(static_cast<int>(position));
  }
  const auto states = rankStates();
  const auto column = std::lower_bound(columns_.begin(), columns_.end(), op.rank);
  const int current = column != columns_.end() && *column == op.rank
                          ? static_cast<int>(column - columns_.begin())
                          : -1;
  auto paint = [&](int col, bool on) {
    for (int row = 0; row < 2; ++row)
      if (QTableWidgetItem* item = table_->item(row, col)) {
        item->setBackground(on ? palette().highlight() : QBrush());
        item->setForeground(on ? palette().highlightedText() : QBrush());
      }
  };
  if (highlighted_ != current) {
    if (highlighted_ >= 0) paint(highlighted_, false);
    if (current >= 0) paint(current, true);
    highlighted_ = current;
    if (current >= 0) table_->scrollToItem(table_->item(0, current));  // its column in view
  }
  for (std::size_t col = 0; col < columns_.size(); ++col) {
    const RankState& state = states[static_cast<std::size_t>(columns_[col])];
    const int cell = static_cast<int>(col);
    table_->item(0, cell)->setText(QString::number(state.inFlight));
    table_->item(1, cell)->setText(QString::fromStdString(trace::formatDuration(state.idleNs)));
  }
  why_->setText(QString::fromStdString(trace::explainOpWait(*run_, op).sentence));
  if (moveTimeline) {
    // Stepping is the replay: only what has started by this op is drawn.
    replaying_ = true;
    lessonOps_.clear();
    lesson_->restart();
    applyToTimeline();
  }
  if (moveTimeline && view_ && view_->run() == run_.get())
    view_->centerOn({op.rank, Lane::Compute, op.index});
}

QString TeachPanel::whyText() const {
  return why_->text();
}

void TeachPanel::endReplay() {
  setPlaying(false);
  replaying_ = false;
  applyToTimeline();
}

void TeachPanel::showLessonStep(const LessonStep* step) {
  setPlaying(false);
  replaying_ = false;
  lessonOps_ = step && run_ ? lessonOps(*run_, *step) : std::vector<trace::OpRef>{};
  applyToTimeline();
}

void TeachPanel::applyToTimeline() {
  if (!view_) return;
  const bool mine = inFront() && run_ && view_->run() == run_.get();
  std::optional<std::int64_t> until;
  if (mine && replaying_ && position_ < order_.size()) {
    const trace::OpRef& op = order_[position_];
    until = run_->ranks[op.rank].lane(Lane::Compute).start[op.index];
  }
  view_->setRevealUntil(until);
  if (overlay_) {
    overlay_->setUntil(until);
    overlay_->setVisible(mine && (replaying_ || reveal_->revealed()));
  }
  // The lesson's ops, emphasised (the rest dimmed); cleared when none or hidden.
  std::vector<TimelineView::Selection> highlights;
  if (mine)
    for (const trace::OpRef& op : lessonOps_)
      highlights.push_back({op.rank, op.lane, op.index});
  if (!highlights.empty() || highlighting_) view_->setHighlights(std::move(highlights));
  highlighting_ = mine && !lessonOps_.empty();
}

bool TeachPanel::inFront() const {
  return isVisible() && !visibleRegion().isEmpty();
}

bool TeachPanel::event(QEvent* event) {
  auto* dock =
      event->type() == QEvent::ParentChange ? qobject_cast<QDockWidget*>(parentWidget()) : nullptr;
  if (dock && dock != dock_) {
    dock_ = dock;
    connect(dock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
      if (!shown) setPlaying(false);
      // After the tab switch has settled (the visible region is known then).
      QTimer::singleShot(0, this, &TeachPanel::applyToTimeline);
    });
  }
  return QWidget::event(event);
}

void TeachPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  applyToTimeline();
}

void TeachPanel::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  setPlaying(false);
  applyToTimeline();  // not visible: the timeline shows the whole run, undimmed
}

}  // namespace ps::ui
