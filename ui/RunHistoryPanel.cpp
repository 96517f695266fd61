#include "ui/RunHistoryPanel.h"

#include <QListWidget>
#include <QScrollBar>
#include <QStyledItemDelegate>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "runtime/run/RunLabels.h"
#include "runtime/run/RunPlan.h"
#include "ui/ListWidthDelegate.h"

namespace ps::ui {

RunHistoryPanel::RunHistoryPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("runHistoryPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  list_ = new QListWidget(this);
  list_->setObjectName("runHistory");
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  // Rows as wide as the list, a long name elided in its middle: the status at its end
  // ("[running]", "[cancelled]") stays in sight instead of behind a horizontal scrollbar.
  list_->setTextElideMode(Qt::ElideMiddle);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  list_->setResizeMode(QListView::Adjust);
  list_->setItemDelegate(new ListWidthDelegate(list_));
  list_->setToolTip("Click a run to show it; Ctrl+click a second run to compare the two.");
  layout->addWidget(list_);
  // Current-row and selection signals both fire for one click: emit once, after both.
  auto changed = [this] {
    if (pending_) return;
    pending_ = true;
    QTimer::singleShot(0, this, [this] {
      pending_ = false;
      emit selectionChanged();
    });
  };
  connect(list_, &QListWidget::itemSelectionChanged, this, [this, changed] {
    trackSelectionOrder();
    changed();
  });
  connect(list_, &QListWidget::currentRowChanged, this, changed);
}

void RunHistoryPanel::setRuns(const std::vector<trace::RunInfo>& runs, qint64 current) {
  const QSignalBlocker block(list_);
  fill(runs);
  if (!runs.empty() || !unsaved_.empty())
    selectRun(current != -1 ? current
                            : list_->item(list_->count() - 1)->data(Qt::UserRole).toLongLong());
}

bool RunHistoryPanel::updateRuns(const std::vector<trace::RunInfo>& runs) {
  const auto same = [](const trace::RunInfo& a, const trace::RunInfo& b) {
    return a.id == b.id && a.name == b.name && a.status == b.status &&
           a.config_json == b.config_json && a.schedule == b.schedule && a.source == b.source;
  };
  if (std::equal(runs.begin(), runs.end(), runs_.begin(), runs_.end(), same)) return false;
  refill(runs);
  return true;
}

void RunHistoryPanel::refill(const std::vector<trace::RunInfo>& runs) {
  const QSignalBlocker block(list_);
  const qint64 current = currentRun();
  const QList<qint64> selected = selectedRuns();
  const int scroll = list_->verticalScrollBar()->value();
  fill(runs);
  int currentRow = -1;
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->data(Qt::UserRole).toLongLong() == current) currentRow = i;
  if (currentRow < 0) {
    if (list_->count() > 0)
      selectRun(list_->item(list_->count() - 1)->data(Qt::UserRole).toLongLong());
    return;
  }
  list_->setCurrentRow(currentRow, QItemSelectionModel::ClearAndSelect);
  for (int i = 0; i < list_->count(); ++i)
    if (selected.contains(list_->item(i)->data(Qt::UserRole).toLongLong()))
      list_->item(i)->setSelected(true);
  list_->verticalScrollBar()->setValue(scroll);  // the user's place in a long history
}

void RunHistoryPanel::setUnsaved(qint64 id, const trace::RunInfo& info, const QString& state) {
  unsaved_[id] = Unsaved{info, state};
  refill(runs_);
}

void RunHistoryPanel::dropUnsaved(qint64 id) {
  if (unsaved_.erase(id)) refill(runs_);
}

void RunHistoryPanel::clearUnsaved() {
  if (unsaved_.empty()) return;
  unsaved_.clear();
  refill(runs_);
}

void RunHistoryPanel::fill(const std::vector<trace::RunInfo>& runs) {
  runs_ = runs;
  list_->clear();
  // The file's runs, then the ones it has no row for yet (shown from memory).
  std::vector<trace::RunInfo> shown = runs;
  for (const auto& [id, u] : unsaved_)
    if (!info(id)) {
      shown.push_back(u.info);
      shown.back().id = id;
    }
  const std::vector<std::string> labels = runtime::historyLabels(shown);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& r = shown[i];
    const auto u = unsaved_.find(r.id);
    QString text = QString("%1  %2")
                       .arg(r.id >= 0 ? QString::number(r.id) : QString("·"))
                       .arg(QString::fromStdString(labels[i]));
    // A plan fitted to an imported run, or a what-if of it: shown as that run's child.
    if (const auto origin = runtime::fittedFromRun(r.config_json))
      text = QString("  ↳ %1  (of run %2)").arg(text).arg(*origin);
    if (u != unsaved_.end())
      text += QString("  [%1]").arg(u->second.state);
    else if (r.status != trace::RunStatus::Complete)
      text += QString("  [%1]").arg(QString::fromUtf8(trace::runStatusName(r.status).data()));
    auto* item = new QListWidgetItem(text, list_);
    item->setData(Qt::UserRole, static_cast<qlonglong>(r.id));
    QString tip = QString::fromStdString(runtime::configSummary(r));
    if (u != unsaved_.end()) tip = QString("Shown from memory (%1)\n%2").arg(u->second.state, tip);
    item->setToolTip(tip);
  }
}

std::optional<qint64> RunHistoryPanel::lastFittedFrom(qint64 origin) const {
  std::optional<qint64> last;
  for (const auto& r : runs_)
    if (r.status == trace::RunStatus::Complete && runtime::fittedFromRun(r.config_json) == origin)
      last = r.id;
  return last;
}

void RunHistoryPanel::selectRun(qint64 id) {
  const QSignalBlocker block(list_);
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->data(Qt::UserRole).toLongLong() == id) {
      list_->setCurrentRow(i, QItemSelectionModel::ClearAndSelect);
      list_->scrollToItem(list_->item(i));
    }
  trackSelectionOrder();
}

void RunHistoryPanel::selectPair(qint64 a, qint64 b) {
  const QSignalBlocker block(list_);
  int rowA = -1, rowB = -1;
  for (int i = 0; i < list_->count(); ++i) {
    const qint64 id = list_->item(i)->data(Qt::UserRole).toLongLong();
    if (id == a) rowA = i;
    if (id == b) rowB = i;
  }
  if (rowA < 0 || rowB < 0) return;
  selectionOrder_ = {a, b};
  if (list_->currentRow() == rowA && list_->item(rowA)->isSelected() &&
      list_->item(rowB)->isSelected() && list_->selectedItems().size() == 2)
    return;
  list_->setCurrentRow(rowB, QItemSelectionModel::ClearAndSelect);
  list_->setCurrentRow(rowA, QItemSelectionModel::Select);
}

qint64 RunHistoryPanel::currentRun() const {
  const QListWidgetItem* item = list_->currentItem();
  return item ? item->data(Qt::UserRole).toLongLong() : -1;
}

void RunHistoryPanel::trackSelectionOrder() {
  QList<qint64> selected;
  for (const QListWidgetItem* item : list_->selectedItems())
    selected << item->data(Qt::UserRole).toLongLong();
  selectionOrder_.removeIf([&](qint64 id) { return !selected.contains(id); });
  // Qt lists the items of one click's selection in row order: the current one is the last
  // clicked, so it goes after the others when several join at once.
  const qint64 current = currentRun();
  for (qint64 id : selected)
    if (!selectionOrder_.contains(id) && id != current) selectionOrder_ << id;
  if (selected.contains(current) && !selectionOrder_.contains(current)) selectionOrder_ << current;
}

QList<qint64> RunHistoryPanel::selectedRuns() const {
  QList<qint64> ids;
  for (const QListWidgetItem* item : list_->selectedItems())
    ids << item->data(Qt::UserRole).toLongLong();
  QList<qint64> ordered;
  for (qint64 id : selectionOrder_)
    if (ids.contains(id)) ordered << id;
  for (qint64 id : ids)  // selected while signals were blocked: after the others
    if (!ordered.contains(id)) ordered << id;
  return ordered;
}

int RunHistoryPanel::count() const {
  return list_->count();
}

const trace::RunInfo* RunHistoryPanel::info(qint64 id) const {
  for (const auto& r : runs_)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace ps::ui
