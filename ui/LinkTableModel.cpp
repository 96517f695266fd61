#include "ui/LinkTableModel.h"

#include "trace/Units.h"
#include "trace/analysis/WideTime.h"

namespace ps::ui {

void LinkTableModel::setAnalysis(const trace::RunAnalysis& analysis) {
  beginResetModel();
  links_ = analysis.links;
  runSpanNs_ = 0;
  for (const auto& s : analysis.steps)
    runSpanNs_ = trace::satAdd(runSpanNs_, trace::satSub(s.end_ns, s.start_ns));  // no wrap
  endResetModel();
}

int LinkTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(links_.size());
}
int LinkTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant LinkTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  static const char* names[] = {"link", "bytes", "busy", "bandwidth", "busy %", "transfers"};
  return section >= 0 && section < kColumns ? QVariant(names[section]) : QVariant();
}

QVariant LinkTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumns) return {};
  const auto& l = links_[index.row()];
  if (role == Qt::TextAlignmentRole)
    return index.column() == 0 || index.column() == kColumns - 1
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case 0:
      return QString("%1 → %2").arg(l.src).arg(l.dst);
    case 1:
      return QString::fromStdString(trace::formatBytes(l.bytes));
    case 2:
      return QString::fromStdString(trace::formatDuration(l.busy_ns));
    case 3:
      return l.busy_ns > 0 ? QString("%1 Gb/s").arg(static_cast<double>(l.bytes) * 8.0 /
                                                        static_cast<double>(l.busy_ns),
                                                    0, 'f', 2)
                           : QString("-");
    case 4:
      return runSpanNs_ > 0 ? QString::fromStdString(trace::formatPercent(
                                  static_cast<double>(l.busy_ns) / static_cast<double>(runSpanNs_)))
                            : QString("-");
    case 5:  // the words that take the table's spare width (the last column stretches)
      return l.ops > 0 ? QString("%1 send%2, %3 each on average")
                             .arg(l.ops)
                             .arg(l.ops == 1 ? "" : "s")
                             .arg(QString::fromStdString(trace::formatBytes(l.bytes / l.ops)))
                       : QString("-");
  }
  return {};
}

}  // namespace ps::ui
