#include "ui/WheelGuard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace ps::ui {
namespace {

class WheelFilter final : public QObject {
 public:
  using QObject::QObject;

  bool eventFilter(QObject* watched, QEvent* event) override {
    auto* knob = qobject_cast<QWidget*>(watched);
    if (event->type() != QEvent::Wheel || !knob || knob->hasFocus()) return false;
    // Ignored and taken from the knob: Qt hands the wheel on to its parents (the scroll area).
    event->ignore();
    return true;
  }
};

template <typename Knob>
void guardAll(QWidget* root, QObject* filter) {
  for (Knob* knob : root->findChildren<Knob*>()) {
    knob->setFocusPolicy(Qt::StrongFocus);  // no focus from the wheel either
    knob->installEventFilter(filter);
  }
}

}  // namespace

void guardWheel(QWidget* root) {
  auto* filter = new WheelFilter(root);
  guardAll<QAbstractSpinBox>(root, filter);
  guardAll<QComboBox>(root, filter);
}

}  // namespace ps::ui
