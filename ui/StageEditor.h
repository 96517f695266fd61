#pragma once
// The stage boundary editor: the model's layers as a bar coloured by cost, stage boundaries as
// handles the user drags (snapping to layers), each stage's total time written inside it, and a
// Balance button that asks the partitioner for the best cut.

#include <QWidget>

#include <vector>

namespace ps::ui {

class StageEditor : public QWidget {
  Q_OBJECT
 public:
  explicit StageEditor(QWidget* parent = nullptr);

  // Layer costs (ns, F+I+W) and the current first layer of stages 1..S-1.
  void setModel(std::vector<double> layerNs, std::vector<int> boundaries);
  const std::vector<int>& boundaries() const { return boundaries_; }
  // x of the handle between stage s and s+1 (tests drag it).
  int handleX(int boundary) const;
  int layerAtX(int x) const;

 signals:
  // "i,j,k" after a drag ends.
  void boundariesChanged(const QString& boundaries);
  void balanceRequested();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  QSize sizeHint() const override { return {300, 74}; }

 private:
  double layerWidth() const;
  int barLeft() const { return 6; }
  int barRight() const { return width() - 6; }

  std::vector<double> layerNs_;
  std::vector<int> boundaries_;
  int dragging_ = -1;
};

}  // namespace ps::ui
