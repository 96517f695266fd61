#pragma once
// The legend of the bubble's causes as the timeline paints them (IdleCauses.h): a swatch with
// the cause's tint or hatch and its name, one row, under the kind legend of the Stats dock.

#include <QWidget>

namespace ps::ui {

class IdleCauseLegend : public QWidget {
 public:
  explicit IdleCauseLegend(QWidget* parent = nullptr);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void rebuild();
};

}  // namespace ps::ui
