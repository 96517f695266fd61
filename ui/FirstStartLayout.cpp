#include "ui/FirstStartLayout.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QStatusBar>

#include <algorithm>

namespace ps::ui {

const char* const FirstStartLayout::kHint =
    "Change a knob and press Run (Ctrl+R), or open a trace (Ctrl+O): the demo shows 1F1B over "
    "4 ranks";

FirstStartLayout::FirstStartLayout(QMainWindow* window, QDockWidget* plan, QDockWidget* history,
                                   QDockWidget* bottom)
    : QObject(window), window_(window), plan_(plan), history_(history), bottom_(bottom) {
  apply();  // for the size it was built at: a window closed unshown saves these
  window->installEventFilter(this);
}

bool FirstStartLayout::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_ && event->type() == QEvent::Show) {
    window_->removeEventFilter(this);
    apply();
    // What to do first, unless the window already says something (a file's warning).
    if (window_->statusBar()->currentMessage().isEmpty()) window_->statusBar()->showMessage(kHint);
    deleteLater();
  }
  return QObject::eventFilter(watched, event);
}

void FirstStartLayout::apply() {
  const int height = window_->height();
  // 1280×720: history 180 px, bottom 180 px (or their least); 1600×1000: 250 and 250.
  const int history = std::clamp(height / 4, 100, 260);
  const int bottom = std::clamp(height / 4, 150, 300);
  window_->resizeDocks({plan_}, {300}, Qt::Horizontal);
  window_->resizeDocks({plan_, history_}, {height - history, history}, Qt::Vertical);
  window_->resizeDocks({bottom_}, {bottom}, Qt::Vertical);
}

}  // namespace ps::ui
