#pragma once
// What the main-window tests share.

#include <QTest>

#include "runtime/run/RunPlan.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"

namespace ps::ui::test_window {

// Runs (the simulator's too) happen on a worker thread: waits until the window has the result
// and a simulated run shown from memory is saved to the file and explained.
inline void waitForRun(const MainWindow& w) {
  for (int i = 0; i < 3000 && (w.runBusy() || w.savesPending() > 0 || w.explanationsPending() > 0);
       ++i)
    QTest::qWait(10);
}

// A cpu run that trains in moments: a 16-wide MLP, GPipe over 2 stages, 2 micro-batches.
inline runtime::RunPlanRequest smallCpuRequest() {
  runtime::RunPlanRequest request = {};
  request.exec = appModelOptions();
  request.backend = runtime::Backend::Cpu;
  request.exec.model.block = runtime::BlockType::Mlp;
  request.exec.model.hidden = 16;
  request.spec.schedule = "gpipe";
  request.spec.stages = 2;
  request.spec.microbatches = 2;
  return request;
}

}  // namespace ps::ui::test_window
