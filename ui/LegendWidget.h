#pragma once
// A one-line legend of the op kind colours and the bubble shade.

#include <QWidget>

namespace ps::ui {

class LegendWidget : public QWidget {
 public:
  explicit LegendWidget(QWidget* parent = nullptr);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace ps::ui
