#include "ui/ExplorePanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "trace/Units.h"
#include "ui/ParetoPlot.h"
#include "ui/PlanKnobWidgets.h"

namespace ps::ui {
namespace {

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

QString candidateLabel(const runtime::ExploreCandidate& c) {
  QString name = text(c.schedule) + QString(" m=%1").arg(c.microbatches);
  if (c.chunks > 1) name += QString(" v=%1").arg(c.chunks);
  if (c.dataParallel > 1) name += QString(" dp=%1").arg(c.dataParallel);
  if (!c.mapping.empty()) name += " on devices " + text(c.mapping);
  return name + " · " + text(c.partition) + " cut " + text(runtime::boundariesText(c.boundaries)) +
         "\nstep " + text(trace::formatDuration(c.stepTimeNs)) +
         QString(" · %1 mb/s · bubble ").arg(c.throughputPerS, 0, 'f', 1) +
         text(trace::formatPercent(c.bubbleRatio)) + " · peak " +
         text(trace::formatBytes(c.peakMemoryBytes));
}

// A refused candidate's cells from its description ("zb-v dp=2 m=8 v=2 mapping auto balanced",
// Explore.cpp's words): the schedule first, "key=value" knobs, the cut last; "–" where it says
// nothing.
// Where a refused row says why: the "step" column, spanning to the end.
constexpr int kRefusedWhyColumn = 5;

QStringList refusedCells(const std::string& what) {
  const QStringList words = text(what).split(' ', Qt::SkipEmptyParts);
  const auto knob = [&](const QString& key) {
    for (const QString& w : words)
      if (w.startsWith(key + "=")) return w.mid(key.size() + 1);
    // dp is written from 2 up; V only where the sweep varies it (zb-v's own 2 is not said).
    return key == "dp" ? QString("1") : QString("–");
  };
  const QString cut = words.isEmpty() ? QString() : words.back();
  return {words.value(0), knob("dp"), knob("m"), knob("v"),
          cut == "balanced" || cut == "memory" || cut == "even" ? cut : QString("–")};
}

}  // namespace

ExplorePanel::ExplorePanel(QWidget* parent) : QWidget(parent) {
  setObjectName("explorePanel");
  auto* layout = new QVBoxLayout(this);
  button_ = new QPushButton("Explore around this plan", this);
  button_->setObjectName("exploreButton");
  button_->setToolTip(
      "Simulate every synchronous schedule with m = the plan's, 2p and 4p, V = 1 and 2, and "
      "the partitioner's and the even cut, on the Plan panel's model, costs and ranks; rank "
      "them by throughput. Click a point or a row to load that plan.");
  connect(button_, &QPushButton::clicked, this, &ExplorePanel::exploreRequested);
  synthButton_ = new QPushButton("Synthesise", this);
  synthButton_->setObjectName("synthButton");
  synthButton_->setToolTip(
      "Search each rank's order of F / I / W under the plan's memory caps (More: rank memory) "
      "for the shortest simulated step, and show it against every generator under the same "
      "caps. Click its row to load it (saved as a torch pipelining CSV).");
  connect(synthButton_, &QPushButton::clicked, this, &ExplorePanel::synthRequested);
  status_ = new QLabel(this);
  status_->setObjectName("exploreStatus");
  status_->setWordWrap(true);
  plot_ = new ParetoPlot(this);
  table_ = new QTableWidget(0, 10, this);
  table_->setObjectName("exploreTable");
  table_->setHorizontalHeaderLabels(
      {"schedule", "dp", "m", "v", "cut", "step", "mb/s", "bubble", "peak", "note"});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  // The figures as wide as they are; the note (front, or why refused) takes the rest.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) { choose(row); });
  connect(plot_, &ParetoPlot::pointChosen, this, &ExplorePanel::choose);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(button_, 1);
  buttons->addWidget(synthButton_);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  // Side by side: the bottom docks are wide and short (a quarter of a 720 px window).
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setChildrenCollapsible(false);
  split->addWidget(plot_);
  split->addWidget(table_);
  // The table has ten columns and the reasons of the refused rows: the larger share is its.
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({360, 640});  // scaled to the dock's width when it is laid out
  layout->addWidget(split, 1);
}

ExplorePanel::~ExplorePanel() = default;

void ExplorePanel::explore(const runtime::RunPlanRequest& base) {
  jobs_.cancel();  // a sweep in flight is superseded (start() also waits for it)
  base_ = base;
  base_.backend = runtime::Backend::Sim;  // candidates are simulated; a chosen one is too
  spec_ = {};
  spec_.base = base.spec;
  const int p = spec_.base.stages.value_or(4);
  spec_.microbatches = {spec_.base.microbatches.value_or(2 * p), 2 * p, 4 * p};
  std::sort(spec_.microbatches.begin(), spec_.microbatches.end());
  spec_.microbatches.erase(std::unique(spec_.microbatches.begin(), spec_.microbatches.end()),
                           spec_.microbatches.end());
  spec_.chunks = {1, 2};
  // Replicas and mapping are swept too: the plain pipeline over every device against the
  // plan's D replicas, and rank order against the plan's mapping.
  const int replicas = std::max(1, spec_.base.dataParallel);
  spec_.base.stages = p * replicas;  // the devices
  spec_.dataParallel = {1};
  if (replicas > 1) spec_.dataParallel.push_back(replicas);
  if (!spec_.base.mapping.empty() && spec_.base.mapping != "rank")
    spec_.mappings = {"", spec_.base.mapping};
  setBusy("Exploring…");
  // Through the window's one kind of background job: a superseded sweep's result never arrives,
  // and busy() stays true until the result is on screen.
  jobs_.start([this, spec = spec_](const JobTracker::Job& job) {
    auto result = std::make_shared<Result<runtime::ExploreResult>>(
        runtime::explorePlans(spec, job.cancelFlag()));
    job.finish([this, result] { showResult(std::move(*result)); });
  });
}

void ExplorePanel::setBusy(const QString& status) {
  button_->setEnabled(false);
  synthButton_->setEnabled(false);
  status_->setText(status);
}

void ExplorePanel::showResult(Result<runtime::ExploreResult> result) {
  button_->setEnabled(true);
  synthButton_->setEnabled(true);
  synth_.reset();
  if (!result) {
    result_.reset();
    status_->setText(text(result.error()));
    plot_->setPoints({});
    table_->setRowCount(0);
    emit finished();
    return;
  }
  result_ = std::move(*result);
  const auto& ranked = result_->ranked;
  const auto& refused = result_->refused;
  // Every candidate is a row: the ranked ones numbered, the refused ones after them, greyed,
  // unnumbered and saying why (the count said 17 refused with no row for any of them).
  status_->setText(QString("%1 candidates: %2 ranked, %3 refused%4, on %5 layers; best: %6")
                       .arg(ranked.size() + refused.size())
                       .arg(ranked.size())
                       .arg(refused.size())
                       .arg(refused.empty() ? QString() : QString(" (grey rows, with why)"))
                       .arg(result_->layers)
                       .arg(ranked.empty() ? QString("none fits")
                                           : candidateLabel(ranked[0]).section('\n', 0, 0)));
  std::vector<ParetoPoint> points;
  for (const auto& c : ranked)
    points.push_back({static_cast<double>(c.peakMemoryBytes),
                      static_cast<double>(c.stepTimeNs) / std::max(c.microbatches, 1),
                      candidateLabel(c)});
  std::vector<bool> onFront(points.size(), false);
  for (int i : paretoFront(points))
    onFront[static_cast<std::size_t>(i)] = true;
  table_->clearSpans();
  table_->setRowCount(0);  // drops the last sweep's row labels too
  table_->setRowCount(static_cast<int>(ranked.size() + refused.size()));
  for (int i = 0; i < static_cast<int>(ranked.size()); ++i) {
    const auto& c = ranked[static_cast<std::size_t>(i)];
    const QStringList cells{text(c.schedule),
                            QString::number(c.dataParallel),
                            QString::number(c.microbatches),
                            QString::number(c.chunks),
                            text(c.partition),
                            text(trace::formatDuration(c.stepTimeNs)),
                            QString::number(c.throughputPerS, 'f', 1),
                            text(trace::formatPercent(c.bubbleRatio)),
                            text(trace::formatBytes(c.peakMemoryBytes)),
                            onFront[static_cast<std::size_t>(i)]
                                ? QString("Pareto front: none faster at less memory")
                                : QString()};
    for (int col = 0; col < cells.size(); ++col)
      table_->setItem(i, col, new QTableWidgetItem(cells[col]));
  }
  for (int k = 0; k < static_cast<int>(refused.size()); ++k) {
    const auto& r = refused[static_cast<std::size_t>(k)];
    const int row = static_cast<int>(ranked.size()) + k;
    const QString why = inPanelWords(r.why);
    // Its knobs, then why in place of the figures it has none of (from "step" to the end, in
    // sight without scrolling to the note).
    QStringList cells = refusedCells(r.what);
    cells << "refused: " + why;
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      item->setFlags(Qt::NoItemFlags);  // greyed, and not a plan to load
      item->setToolTip(text(r.what) + "\nrefused: " + why);
      table_->setItem(row, col, item);
    }
    table_->setSpan(row, kRefusedWhyColumn, 1, table_->columnCount() - kRefusedWhyColumn);
    // The reason is drawn over the span (elided there, whole in the tooltip): it must not widen
    // the "step" column it starts in, which the view sizes to its contents.
    table_->item(row, kRefusedWhyColumn)->setData(Qt::SizeHintRole, QSize(1, 1));
    table_->setVerticalHeaderItem(row, new QTableWidgetItem("–"));
  }
  plot_->setPoints(std::move(points));
  emit finished();
}

void ExplorePanel::choose(int index) {
  if (synth_) return chooseSynth(index);
  if (!result_ || index < 0 || index >= static_cast<int>(result_->ranked.size())) return;
  plot_->setSelected(index);
  table_->selectRow(index);
  runtime::RunPlanRequest request = base_;
  request.spec = runtime::candidateSpec(spec_, result_->ranked[static_cast<std::size_t>(index)],
                                        result_->layers);
  request.name.clear();
  request.configJson.clear();
  emit candidateChosen(request);
}

}  // namespace ps::ui
