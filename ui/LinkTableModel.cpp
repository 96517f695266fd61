#include "ui/LinkTableModel.h"

#include "trace/Units.h"

namespace ps::ui {
namespace {

QString formatValue(double v, const QString& unit) {
  if (unit == "ns")
    return QString::fromStdString(trace::formatDuration(static_cast<std::int64_t>(v)));
  if (unit == "bytes")
    return QString::fromStdString(trace::formatBytes(static_cast<std::int64_t>(v)));
  if (unit == "ratio") return QString::fromStdString(trace::formatPercent(v));
  return QString::number(v, 'g', 6);
}

}  // namespace

void LinkTableModel::setAnalysis(const trace::RunAnalysis& analysis) {
  beginResetModel();
  links_ = analysis.links;
  runSpanNs_ = 0;
  for (const auto& s : analysis.steps)
    runSpanNs_ += s.span_ns();
  endResetModel();
}

int LinkTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(links_.size());
}
int LinkTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 5;
}

QVariant LinkTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  static const char* names[] = {"link", "bytes", "busy", "bandwidth", "busy %"};
  return section >= 0 && section < 5 ? QVariant(names[section]) : QVariant();
}

QVariant LinkTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= 5) return {};
  const auto& l = links_[index.row()];
  if (role == Qt::TextAlignmentRole)
    return index.column() == 0 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
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
  }
  return {};
}

void CompareModel::setRuns(const trace::RunAnalysis& a, const trace::RunAnalysis& b) {
  beginResetModel();
  rows_.clear();
  nameA_ = QString("run %1").arg(a.run.id);
  nameB_ = QString("run %1").arg(b.run.id);
  auto opt = [](auto v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  rows_.push_back({"step time", opt(a.step_time_ns), opt(b.step_time_ns), "ns"});
  rows_.push_back({"bubble", a.bubble_ratio, b.bubble_ratio, "ratio"});
  rows_.push_back({"steady bubble", a.steady_bubble_ratio, b.steady_bubble_ratio, "ratio"});
  auto peak = [](const trace::RunAnalysis& r) {
    std::optional<double> m;
    for (const auto& rank : r.ranks)
      if (rank.peak_memory_bytes)
        m = std::max(m.value_or(0), static_cast<double>(*rank.peak_memory_bytes));
    return m;
  };
  rows_.push_back({"peak memory (max rank)", peak(a), peak(b), "bytes"});
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> metrics;
  for (const auto& [k, v] : a.metrics)
    metrics[k].first = v;
  for (const auto& [k, v] : b.metrics)
    metrics[k].second = v;
  for (const auto& [k, v] : metrics)
    rows_.push_back({QString::fromStdString(k), v.first, v.second, ""});
  endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int CompareModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 5;
}

QVariant CompareModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  switch (section) {
    case 0:
      return "metric";
    case 1:
      return nameA_;
    case 2:
      return nameB_;
    case 3:
      return "B − A";
    case 4:
      return "B / A";
  }
  return {};
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= 5 ||
      role != Qt::DisplayRole)
    return {};
  const Row& r = rows_[index.row()];
  switch (index.column()) {
    case 0:
      return r.name;
    case 1:
      return r.a ? formatValue(*r.a, r.unit) : QString("-");
    case 2:
      return r.b ? formatValue(*r.b, r.unit) : QString("-");
    case 3:
      if (!r.a || !r.b) return QString("-");
      if (r.unit == "ratio") return QString("%1 points").arg((*r.b - *r.a) * 100.0, 0, 'f', 2);
      return formatValue(*r.b - *r.a, r.unit);
    case 4:
      return r.a && r.b && *r.a != 0 ? QString::number(*r.b / *r.a, 'f', 3) : QString("-");
  }
  return {};
}

}  // namespace ps::ui
