#include "ui/CompareModel.h"

#include <QFont>

#include <cmath>

namespace ps::ui {
namespace {

// Knob values past this many characters are elided in the cell; the tooltip has them whole.
constexpr int kMaxCellChars = 40;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString elided(const QString& text) {
  return text.size() <= kMaxCellChars ? text : text.left(kMaxCellChars - 1) + QChar(0x2026);
}

// The value without rounding, for the tooltip: the cells show three or four digits.
QString exact(const runtime::CompareRow& row, double v) {
  switch (row.unit) {
    case runtime::CompareUnit::Duration:
      return QString("%1 ns").arg(std::llround(v));
    case runtime::CompareUnit::Bytes:
      return QString("%1 B").arg(std::llround(v));
    case runtime::CompareUnit::Ratio:
      return QString("%1 %").arg(v * 100.0, 0, 'f', 4);
    case runtime::CompareUnit::Rate:
      return QString("%1 /s").arg(v, 0, 'g', 12);
    case runtime::CompareUnit::Plain:
      break;
  }
  return QString::number(v, 'g', 12);
}

}  // namespace

void CompareModel::setRuns(const trace::RunAnalysis& a, const trace::RunAnalysis& b) {
  setComparison(runtime::compareRuns(a, b));
}

void CompareModel::setComparison(runtime::RunComparison comparison) {
  beginResetModel();
  c_ = std::move(comparison);
  empty_ = false;
  endResetModel();
}

void CompareModel::clear() {
  beginResetModel();
  c_ = {};
  empty_ = true;
  endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || empty_) return 0;
  return knobRowsBegin() + static_cast<int>(c_.differences.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  const bool runColumn = section == ValueA || section == ValueB;
  if (role == Qt::ToolTipRole && runColumn && !empty_) {
    const auto& run = section == ValueA ? c_.runA : c_.runB;
    const auto& origin = section == ValueA ? c_.originA : c_.originB;
    return qs(runtime::compareRunTitle(run, origin));
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Metric:
      return QString("metric");
    case ValueA:
      return empty_ ? QString("A") : QString("A: run %1").arg(c_.runA.id);
    case ValueB:
      return empty_ ? QString("B") : QString("B: run %1").arg(c_.runB.id);
    case Diff:
      return QString("B − A");
    case Ratio:
      return QString("B / A");
  }
  return {};
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const int row = index.row();
  const int column = index.column();
  const int numbers = static_cast<int>(c_.rows.size());
  if (row < numbers) return numberData(c_.rows[static_cast<std::size_t>(row)], column, role);
  if (row >= knobRowsBegin())
    return knobData(c_.differences[static_cast<std::size_t>(row - knobRowsBegin())], column, role);

  // The heading row of the "what differs" section.
  if (role == SectionRole) return true;
  if (role == Qt::FontRole) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (column != Metric || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) return {};
  if (c_.differences.empty()) return QString("what differs: nothing in the runs' configs");
  return QString("what differs");
}

QVariant CompareModel::numberData(const runtime::CompareRow& r, int column, int role) const {
  if (role == SectionRole) return false;
  if (role == Qt::TextAlignmentRole)
    return column == Metric ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::DisplayRole) {
    switch (column) {
      case Metric:
        return qs(r.label);
      case ValueA:
        return qs(runtime::formatCompareValue(r, r.a));
      case ValueB:
        return qs(runtime::formatCompareValue(r, r.b));
      case Diff:
        return qs(runtime::formatCompareDiff(r));
      case Ratio:
        return qs(runtime::formatCompareRatio(r));
    }
  }
  if (role == Qt::ToolTipRole) {
    auto value = [&](const std::optional<double>& v) {
      return v ? exact(r, *v) : QString("no value in this run");
    };
    switch (column) {
      case Metric:
        return QString("%1 (%2)").arg(qs(r.label), qs(r.key));
      case ValueA:
        return value(r.a);
      case ValueB:
        return value(r.b);
      case Diff:
        if (!r.diff()) return QString("needs a value in both runs");
        if (r.unit == runtime::CompareUnit::Ratio)
          return QString("%1 percentage points").arg(*r.diff() * 100.0, 0, 'f', 4);
        return exact(r, *r.diff());
      case Ratio:
        return r.ratio() ? QString::number(*r.ratio(), 'g', 12)
                         : QString("needs a value in both runs and A ≠ 0");
    }
  }
  return {};
}

QVariant CompareModel::knobData(const runtime::KnobDifference& k, int column, int role) const {
  if (role == SectionRole) return false;
  if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const bool tip = role == Qt::ToolTipRole;
  auto value = [&](const std::optional<std::string>& v) {
    if (!v) return QString(tip ? "not in this run's config" : "-");
    return tip ? qs(*v) : elided(qs(*v));
  };
  switch (column) {
    case Metric:
      return tip ? QString("%1 (%2)").arg(qs(k.label), qs(k.key)) : qs(k.label);
    case ValueA:
      return value(k.a);
    case ValueB:
      return value(k.b);
  }
  return tip ? QVariant() : QVariant(QString());
}

}  // namespace ps::ui
