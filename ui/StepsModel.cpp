#include "ui/StepsModel.h"

#include <QColor>
#include <QFont>

#include "trace/Units.h"

namespace ps::ui {
namespace {

QString durationText(std::int64_t ns) {
  return QString::fromStdString(trace::formatDuration(ns));
}
QString percentText(double ratio) {
  return QString::fromStdString(trace::formatPercent(ratio));
}

}  // namespace

void StepsModel::setTables(trace::StepTable table, trace::StragglerTable stragglers) {
  beginResetModel();
  table_ = std::move(table);
  stragglers_ = std::move(stragglers);
  endResetModel();
}

void StepsModel::clear() {
  setTables({}, {});
}

int StepsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

int StepsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kCulpritsColumn + 1;
}

const trace::StepStragglers* StepsModel::stragglersOf(int row) const {
  const auto r = static_cast<std::size_t>(row);
  if (r >= stragglers_.steps.size() || stragglers_.steps[r].step != table_.rows[r].step)
    return nullptr;
  return &stragglers_.steps[r];
}

QVariant StepsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const trace::StepRow& row = table_.rows[static_cast<std::size_t>(index.row())];
  const trace::StepStragglers* s = stragglersOf(index.row());
  const int col = index.column();
  const bool culprits = col == kCulpritsColumn && s != nullptr && !s->culprits().empty();
  if (role == Qt::DisplayRole) {
    if (col == 0) return row.step;
    if (col == 1) return durationText(row.spanNs);
    if (col == 2) return percentText(row.bubbleRatio);
    if (col < kLastColumn) return percentText(row.share(static_cast<trace::IdleCause>(col - 3)));
    if (col == kLastColumn)
      return s && s->lastRank >= 0
                 ? QString("%1 (+%2)").arg(s->lastRank).arg(durationText(s->lastByNs))
                 : QString("-");
    QStringList ranks;
    if (s)
      for (int r : s->culprits())
        ranks << QString::number(r);
    return ranks.isEmpty() ? QString("-") : ranks.join(", ");
  }
  if (role == Qt::TextAlignmentRole && col < kLastColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::BackgroundRole && culprits) return QColor(220, 60, 60, 90);
  if (role == Qt::FontRole && culprits) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::ToolTipRole && culprits) {
    QStringList lines;
    for (const trace::RankStepVerdict& v : s->ranks)
      if (v.culprit)
        lines << QString("rank %1: its ops ran %2x slower than its peers' (+%3)")
                     .arg(v.rank)
                     .arg(v.slowness, 0, 'f', 2)
                     .arg(durationText(v.excessNs));
    return lines.join('\n');
  }
  return {};
}

QVariant StepsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  if (section == 0) return QString("Step");
  if (section == 1) return QString("Time");
  if (section == 2) return QString("Bubble");
  if (section >= kCauseColumn && section < kLastColumn) {
    const auto label = trace::idleCauseLabel(static_cast<trace::IdleCause>(section - kCauseColumn));
    return QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
  }
  if (section == kLastColumn) return QString("Last (by)");
  if (section == kCulpritsColumn) return QString("Culprits");
  return {};
}

}  // namespace ps::ui
