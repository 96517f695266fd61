#pragma once
// Links of a run as a table: per (src, dst) pair the bytes moved, the time the link was busy,
// the achieved bandwidth while busy, and busy % of the run's step time.

#include <QAbstractTableModel>

#include "trace/analysis/RunAnalysis.h"

namespace ps::ui {

class LinkTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
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

// Two runs side by side: step time, bubble, steady bubble, peak memory and the last value of
// each metric, with the difference (B − A) and the ratio.
class CompareModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setRuns(const trace::RunAnalysis& a, const trace::RunAnalysis& b);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString name;
    std::optional<double> a, b;
    QString unit;  // "ns", "ratio", "bytes", ""
  };
  std::vector<Row> rows_;
  QString nameA_, nameB_;
};

}  // namespace ps::ui
