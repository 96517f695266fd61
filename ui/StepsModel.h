#pragma once
// The Steps view's table (trace/analysis/StepTable, Stragglers): a row per step with its time,
// bubble, share of each idle cause, the rank that finished last (and by how much) and the ranks
// that were culprits, whose cell is tinted and whose tooltip says how much slower they ran.

#include <QAbstractTableModel>

#include "trace/analysis/StepTable.h"
#include "trace/analysis/Stragglers.h"

namespace ps::ui {

class StepsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // Columns: step, time, bubble, one per idle cause (trace::IdleCause order), last, culprits.
  static constexpr int kCauseColumn = 3;
  static constexpr int kLastColumn = kCauseColumn + trace::kIdleCauseCount;
  static constexpr int kCulpritsColumn = kLastColumn + 1;

  using QAbstractTableModel::QAbstractTableModel;
  void setTables(trace::StepTable table, trace::StragglerTable stragglers);
  void clear();
  const trace::StepTable& table() const { return table_; }
  const trace::StragglerTable& stragglers() const { return stragglers_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const trace::StepStragglers* stragglersOf(int row) const;
  trace::StepTable table_;
  trace::StragglerTable stragglers_;
};

}  // namespace ps::ui
