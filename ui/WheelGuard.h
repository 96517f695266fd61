#pragma once
// Scrolling a panel of knobs must not turn them: a wheel over a spin box or a combo box that has
// no focus scrolls the panel instead (the way Qt Creator's settings pages do). Click or Tab into
// a knob first to change it with the wheel.

class QWidget;

namespace ps::ui {

// Guards every spin box and combo box under `root` (call once its knobs exist).
void guardWheel(QWidget* root);

}  // namespace ps::ui
