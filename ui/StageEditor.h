#pragma once
// The stage boundary editor: the model's layers as a bar coloured by cost, stage boundaries as
// handles the user drags (snapping to layers), each stage's total time written above it, and a
// Balance button that asks the partitioner for the best cut. A run whose layers carry no times
// (cpu, cuda) still shows its stages, one equal width per layer. With one layer per stage no
// boundary can move: the editor says so instead of pretending.
// Keyboard: Tab focuses it, Left/Right select a boundary, Shift+Left/Right (or +/-) move it by a
// layer, Enter applies (one boundariesChanged), Escape reverts.

#include <QRect>
#include <QString>
#include <QWidget>

#include <vector>

#include "trace/RunTrace.h"

namespace ps::ui {

class StageEditor : public QWidget {
  Q_OBJECT
 public:
  explicit StageEditor(QWidget* parent = nullptr);

  // Layer costs (ns, F+I+W) and the current first layer of stages 1..S-1.
  void setModel(std::vector<double> layerNs, std::vector<int> boundaries);
  // The same from a run: its layer table, or when it has none (cpu and cuda runs record no
  // layer times) as many untimed layers as its stage table covers.
  void setRun(const trace::RunTrace& run);
  // The shape the Plan panel's knobs now ask for (issue 34 item 4): `layers` layers cut into
  // `stages` stages. The boundaries shown stay when the shape is the one shown; otherwise an even
  // split (earlier stages take the remainder, as the partitioner does with equal layers) of the
  // new shape, the layers untimed until a run measures them. Fewer layers than stages: no
  // boundaries, and hint() says so. 0 for either: as shown. Never emits: the knobs run, or not, as
  // the panel says.
  void followShape(int layers, int stages);
  const std::vector<int>& boundaries() const { return boundaries_; }
  int layerCount() const { return static_cast<int>(layerNs_.size()); }
  // x of the handle between stage s and s+1 (tests drag it).
  int handleX(int boundary) const;
  int layerAtX(int x) const;
  // The boundary selected with the keyboard (or last dragged), -1 for none.
  int selectedBoundary() const { return selected_; }
  // Boundaries moved with the keyboard and not yet applied with Enter.
  bool hasPendingEdit() const { return boundaries_ != committed_; }
  // Why nothing can be edited ("one layer per stage: raise Layers to move boundaries", "fewer
  // layers (6) than stages (8): raise Layers"), drawn
  // in the label row; empty when boundaries can move.
  QString hint() const;
  // The tooltip at a widget position: a handle's ("stage 3 | stage 4: layer 12") or a stage's.
  QString toolTipAt(QPoint pos) const;
  // Stage labels as painted: thinned to every k-th stage and shortened so none overlap.
  struct Label {
    int stage;
    QRect rect;
    QString text;
  };
  std::vector<Label> stageLabels() const;

 signals:
  // "i,j,k" after a drag ends or Enter applies a keyboard edit; never when nothing moved.
  void boundariesChanged(const QString& boundaries);
  void balanceRequested();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;
  bool event(QEvent* event) override;
  QSize sizeHint() const override { return {300, 74}; }

 private:
  double layerWidth() const;
  int barLeft() const { return 6; }
  int barRight() const { return width() - 6; }
  int handleAt(QPoint pos) const;
  std::vector<int> cuts() const;  // 0, boundaries..., layer count
  double stageNs(int stage) const;
  void moveSelected(int layers);
  void apply();
  void updateSummaryToolTip();

  static constexpr int kLabelRow = 22;
  std::vector<double> layerNs_;
  bool timed_ = false;  // layer costs known (else equal widths, no totals)
  std::vector<int> boundaries_;
  std::vector<int> committed_;  // as last set or applied: Escape returns here
  int missingStages_ = 0;       // followShape asked for more stages than layers: this many
  int dragging_ = -1;
  int selected_ = -1;
  QString summary_;
};

}  // namespace ps::ui
