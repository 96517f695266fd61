#pragma once
// The link matrix of a run: one cell per (sender, receiver) rank pair, shaded by the bytes sent,
// labelled with the bytes and the busy share of the run's span; hover for the exact figures.
// Sits beside the link table in the Links dock.

#include <QWidget>

#include <vector>

#include "trace/analysis/RunAnalysis.h"

namespace ps::ui {

class LinkMatrixView : public QWidget {
  Q_OBJECT
 public:
  explicit LinkMatrixView(QWidget* parent = nullptr);

  // `spanNs`: the run's length, for busy %.
  void setLinks(std::vector<trace::LinkSummary> links, int ranks, std::int64_t spanNs);
  // The cell a widget position falls in as (src, dst), or (-1, -1).
  std::pair<int, int> cellAt(QPoint pos) const;
  QSize sizeHint() const override { return {320, 240}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRect cellRect(int src, int dst) const;
  const trace::LinkSummary* link(int src, int dst) const;

  std::vector<trace::LinkSummary> links_;
  int ranks_ = 0;
  std::int64_t spanNs_ = 0;
};

}  // namespace ps::ui
