#pragma once
// The main window's layout before the user has arranged it (no saved state): in the left column
// (Plan over Run history, the window's full height) the Plan dock takes most of it, so that
// Run and the primary knobs show without scrolling at 1280×720; the bottom docks take about a
// quarter, below the timeline only, so that the demo's four ranks show whole. The sizes are set
// now and again when the window is first shown, from the size it is shown at.
// The status bar then says what to do first.

#include <QObject>

class QDockWidget;
class QMainWindow;

namespace ps::ui {

class FirstStartLayout : public QObject {
  Q_OBJECT
 public:
  // The message the status bar starts with.
  static const char* const kHint;

  // Lays out `window` (a child of it; it ends its own life after the first show). `plan` and
  // `history`: the left docks, top to bottom; `bottom`: the bottom docks' first (they are tabbed).
  FirstStartLayout(QMainWindow* window, QDockWidget* plan, QDockWidget* history,
                   QDockWidget* bottom);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void apply();

  QMainWindow* window_;
  QDockWidget *plan_, *history_, *bottom_;
};

}  // namespace ps::ui
