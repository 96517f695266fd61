#pragma once
// What the main-window tests share.

#include <QTest>

#include "ui/MainWindow.h"

namespace ps::ui::test_window {

// Runs (the simulator's too) happen on a worker thread: waits until the window has the result
// and a simulated run shown from memory is saved to the file and explained.
inline void waitForRun(const MainWindow& w) {
  for (int i = 0; i < 3000 && (w.runBusy() || w.savesPending() > 0 || w.explanationsPending() > 0);
       ++i)
    QTest::qWait(10);
}

}  // namespace ps::ui::test_window
