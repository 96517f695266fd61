// Issue 34 item 10: the app names its own controls. A refusal worded for the CLI ("--layers:
// …", "--max-deferred-w …") reads with the Plan panel's labels in the panel and the status bar;
// the knob it names is still the one marked.

#include <gtest/gtest.h>

#include <QLabel>

#include "ui/PlanKnobWidgets.h"
#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

TEST(PanelWords, PlanFlagsReadAsTheirControlsLabels) {
  EXPECT_EQ(inPanelWords("--layers: the model has 4 layers, fewer than the plan's 8 stages"),
            "Layers: the model has 4 layers, fewer than the plan's 8 stages");
  EXPECT_EQ(inPanelWords("--wgrad-us must be between 0 and --bwd-us (got 5)").toStdString(),
            inPanelWords("--wgrad-us").toStdString() + " must be between 0 and " +
                inPanelWords("--bwd-us").toStdString() + " (got 5)");
  EXPECT_FALSE(inPanelWords("--wgrad-us must be between 0 and --bwd-us").contains("--"));
  EXPECT_EQ(inPanelWords("--not-a-knob 3: no"), "--not-a-knob 3: no") << "unknown flags stay";
  EXPECT_EQ(inPanelWords("no flags here"), "no flags here");
}

TEST(PanelWords, ARunErrorShowsInThePanelsWords) {
  PlanPanel panel;
  panel.showRunError("--layers: the model has 4 layers, fewer than the plan's 8 stages");
  const QString shown = panel.findChild<QLabel*>("planError")->text();
  EXPECT_TRUE(shown.startsWith("Layers: the model has 4 layers")) << shown.toStdString();
  EXPECT_FALSE(shown.contains("--")) << shown.toStdString();
}

}  // namespace
}  // namespace ps::ui
