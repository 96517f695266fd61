// Screenshots of real runs for review: PIPESCOPE_UI_SHOTS=DIR and PIPESCOPE_SHOT_RUNS=a.sqlite,...
// (made with `pipescope-cli sim --schedule NAME ... --db FILE`) save each file's latest run as
// DIR/run-<file>-<light|dark>.png, with flows on and a micro-batch selected.

#include <gtest/gtest.h>

#include <QFileInfo>
#include <QStringList>

#include "tests/ui/TimelineTestRuns.h"
#include "trace/store/TraceReader.h"
#include "ui/timeline/TimelinePanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(TimelineRunShots, SavedRuns) {
  const char* runs = std::getenv("PIPESCOPE_SHOT_RUNS");
  if (!std::getenv("PIPESCOPE_UI_SHOTS") || !runs)
    GTEST_SKIP() << "PIPESCOPE_UI_SHOTS or PIPESCOPE_SHOT_RUNS not set";
  for (const QString& path : QString(runs).split(',', Qt::SkipEmptyParts)) {
    auto run = trace::loadRunFromFile(path.toStdString(), std::nullopt);
    ASSERT_TRUE(run.ok()) << path.toStdString() << ": " << run.error();
    auto shared = std::make_shared<trace::RunTrace>(std::move(run).value());
    for (bool dark : {false, true}) {
      testruns::usePalette(dark);
      TimelinePanel panel;
      panel.resize(1280, 720);
      panel.setTitle(QString::fromStdString(shared->info.name));
      panel.view()->setRun(shared);
      panel.view()->setFlowsVisible(true);
      if (!shared->ranks.empty() && shared->ranks[0].lane(trace::Lane::Compute).size() > 3)
        panel.view()->select({0, trace::Lane::Compute, 3});
      panel.show();
      testruns::shot(
          panel, QString("run-%1-%2").arg(QFileInfo(path).baseName()).arg(dark ? "dark" : "light"));
    }
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
