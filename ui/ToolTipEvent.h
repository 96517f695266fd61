#pragma once
// Tooltips that depend on where the pointer is (a handle, a matrix cell): widgets answer
// QEvent::ToolTip with the text for the position, or hide the tip where there is none.

#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

namespace ps::ui {

// Handles `event` when it is a tooltip request: shows `textAt(position)` (hides any tip when
// it is empty) and returns true; returns false for every other event.
template <typename TextAt>
bool showPositionalToolTip(QWidget* widget, QEvent* event, TextAt textAt) {
  if (event->type() != QEvent::ToolTip) return false;
  auto* help = static_cast<QHelpEvent*>(event);
  const QString text = textAt(help->pos());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(help->globalPos(), text, widget);
  return true;
}

}  // namespace ps::ui
