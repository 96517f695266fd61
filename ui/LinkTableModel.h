#pragma once
// Links of a run as a table: per (src, dst) pair the bytes moved, the time the link was busy,
// the achieved bandwidth while busy, busy % of the run's step time, and its transfers in words
// (how many sends, of what mean size).

#include <QAbstractTableModel>

#include "trace/analysis/RunAnalysis.h"

namespace ps::ui {

class LinkTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  static constexpr int kColumns = 6;
  void setAnalysis(const trace::RunAnalysis& analysis);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<trace::LinkSummary> links_;
  std::int64_t runSpanNs_ = 0;
};

}  // namespace ps::ui
