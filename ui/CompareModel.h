#pragma once
// Two runs side by side for the Compare pane: a thin Qt face over runtime::RunComparison (the
// same table `pipescope-cli compare` prints). Rows: the headline numbers with B − A and B / A,
// then a "what differs" heading and one row per knob whose value differs.

#include <QAbstractTableModel>

#include "runtime/run/RunComparison.h"

namespace ps::ui {

class CompareModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // True on the "what differs" heading row (drawn bold, its cells past the first empty).
  static constexpr int SectionRole = Qt::UserRole + 1;
  enum Column { Metric, ValueA, ValueB, Diff, Ratio, ColumnCount };

  using QAbstractTableModel::QAbstractTableModel;
  void setRuns(const trace::RunAnalysis& a, const trace::RunAnalysis& b);
  void setComparison(runtime::RunComparison comparison);
  // No runs: an empty table (nothing stale left behind).
  void clear();
  const runtime::RunComparison& comparison() const { return c_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant numberData(const runtime::CompareRow& row, int column, int role) const;
  QVariant knobData(const runtime::KnobDifference& knob, int column, int role) const;
  int knobRowsBegin() const { return static_cast<int>(c_.rows.size()) + 1; }

  runtime::RunComparison c_;
  bool empty_ = true;
};

}  // namespace ps::ui
