#pragma once
// The explorer's candidates as points of time per micro-batch (y) against the largest rank's
// peak memory (x): lower left is better. The Pareto front — no other candidate is both faster
// and smaller — is drawn filled and joined; the others hollow. Hover names a point; a click
// selects it (pointChosen). A synthesised schedule is a diamond, and the cap it was found under
// a dashed line.

#include <QColor>
#include <QPalette>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

namespace ps::ui {

struct ParetoPoint {
  double memoryBytes = 0;
  double nsPerMicrobatch = 0;
  QString label;
  bool synthesised = false;  // the synthesiser's schedule: drawn as a diamond
};

// Indices of the points on the front (none faster at no more memory), by memory ascending.
std::vector<int> paretoFront(const std::vector<ParetoPoint>& points);

// The plot's colours in `palette`: the front's (Okabe–Ito blue; its sky blue on a dark base) and
// the other points' (the text colour half over the base, over 3:1 against it on light and dark
// palettes alike: the palette's Mid vanished on the dark one, 1.1:1).
QColor paretoFrontColour(const QPalette& palette);
QColor paretoOtherColour(const QPalette& palette);

class ParetoPlot : public QWidget {
  Q_OBJECT
 public:
  explicit ParetoPlot(QWidget* parent = nullptr);
  // `capBytes`: the memory cap the points were found under, drawn as a dashed line (Synthesise).
  void setPoints(std::vector<ParetoPoint> points, std::optional<double> capBytes = std::nullopt);
  std::optional<double> cap() const { return cap_; }
  void setSelected(int index);
  int selected() const { return selected_; }
  // The point drawn nearest to `pos` within a few pixels, or -1 (tests, hover, click).
  int pointAt(QPointF pos) const;
  QPointF positionOf(int index) const;
  const std::vector<int>& front() const { return front_; }
  QSize sizeHint() const override { return {360, 220}; }

 signals:
  void pointChosen(int index);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRectF plotRect() const;
  double leftMargin() const;
  std::vector<ParetoPoint> points_;
  std::vector<int> front_;
  double xMin_ = 0, xMax_ = 1, yMin_ = 0, yMax_ = 1;
  int selected_ = -1;
  std::optional<double> cap_;
};

}  // namespace ps::ui
