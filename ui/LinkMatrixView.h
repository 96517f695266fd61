#pragma once
// The link matrix of a run: one cell per (sender, receiver) rank pair, shaded by the bytes sent,
// labelled with the bytes and the busy share of the run's span; hover for the exact figures.
// Rows are senders, columns receivers. Past a dozen ranks the rank labels thin out to every
// k-th (k = 1, 2, 4, ...) so they never overlap; every cell and label keeps its full figures in
// its tooltip. Sits beside the link table in the Links dock.

#include <QWidget>

#include <unordered_map>
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
  // Every labelStep()-th rank is labelled; the label rects as painted (rank r's row / column).
  int labelStep() const;
  QRect rowLabelRect(int rank) const;
  QRect columnLabelRect(int rank) const;
  // The tooltip at a widget position: a cell's figures ("rank 3 → rank 4 ...", also for a pair
  // that sent nothing) or a rank label's totals; empty elsewhere.
  QString toolTipAt(QPoint pos) const;
  // Cells painted by the last paint: only those on screen (a million ranks paint a screenful,
  // not 10^12 cells).
  std::size_t drawnCells() const { return drawnCells_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRect cellRect(int src, int dst) const;
  int gutter() const;  // row / column label width: two digits at least
  const trace::LinkSummary* link(int src, int dst) const;
  // Rows (and columns) with at least one pixel on screen.
  int visibleCells() const;

  std::vector<trace::LinkSummary> links_;
  std::unordered_map<std::uint64_t, std::size_t> byPair_;  // (src, dst) -> index in links_
  std::size_t drawnCells_ = 0;
  int ranks_ = 0;
  std::int64_t spanNs_ = 0;
};

}  // namespace ps::ui
