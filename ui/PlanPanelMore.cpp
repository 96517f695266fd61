#include "ui/PlanPanel.h"

// The panel's "More" section: the knobs most plans leave at their defaults, and the one-line
// summary beside the toggle of those that are not. Its plan knobs come from the knob table.

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>
#include <QToolButton>

#include "ui/ElidedLabel.h"
#include "ui/PlanPanelTips.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {
using panelwidgets::combo;
using panelwidgets::dspin;

void PlanPanel::buildMore() {
  moreToggle_ = panelwidgets::disclosure(this, "moreToggle", "More", tips::kMore);
  // One line beside the toggle, elided (the whole summary in its tooltip): wrapped, a long
  // summary ran on under the knobs.
  moreSummary_ = new ElidedLabel(this);
  moreSummary_->setObjectName("moreSummary");
  QFont small = moreSummary_->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  moreSummary_->setFont(small);
  moreSummary_->setToolTipTail(tips::kMore);
  more_ = new QWidget(this);
  more_->setObjectName("moreGroup");
  auto* form = new QFormLayout(more_);
  form->setContentsMargins(12, 0, 0, 0);
  form->setVerticalSpacing(3);
  // A row wider than the dock (F / B / W µs: three spin boxes beside an 18-letter label column)
  // puts its label above its fields instead of a horizontal scrollbar under the form.
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  latency_ = dspin(more_, "latencySpin", 1e6, 2, " µs", tips::kLinkLatency);
  sync_ = combo(more_, "optimizerSyncCombo", {"barrier", "none"}, tips::kOptimizerSync);
  // Every other plan knob from its row in the knob table (ui/PlanKnobWidgets.cpp).
  knobs_.build(
      more_, form,
      {{"link_latency_us", "Link latency", latency_}, {"optimizer_sync", "Optimizer sync", sync_}},
      [this](bool movesCut) { userChanged(movesCut); });
  optimizer_ = combo(more_, "optimizerCombo", {"adam", "sgd"}, tips::kOptimizer);
  form->addRow("Optimizer", optimizer_);
  // Spin boxes size themselves for their largest value ("1000000000.00 µs"): two of them, or one
  // beside a combo, made the open section wider than the dock and pushed Run out of sight.
  for (QAbstractSpinBox* spin : more_->findChildren<QAbstractSpinBox*>())
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance("00000.0") + 24);
  for (QComboBox* c : more_->findChildren<QComboBox*>())
    c->setMinimumContentsLength(4);
  more_->setVisible(false);
  // Not a checkable button: a checked tool button draws sunken, which reads as "pressed".
  connect(moreToggle_, &QToolButton::clicked, this, [this] { setMoreOpen(!moreOpen()); });
}

QString PlanPanel::moreSummary() const {
  QStringList parts;
  if (latency_->value() > 0) parts << QString("latency %1 µs").arg(latency_->value());
  if (!shown_.spec.costsFile.empty())
    parts << "costs from " + QString::fromStdString(shown_.spec.costsFile).section('/', -1);
  else if (shown_.spec.costs)
    parts << "the run's own costs";
  else {
    if (knobValue("act_mb") != 1) parts << QString("act %1 MB").arg(knobValue("act_mb"));
    const double f = knobValue("fwd_us"), b = knobValue("bwd_us"), w = knobValue("wgrad_us");
    if (f != 100 || b != 200 || w != 100)
      parts << QString("F/B/W %1/%2/%3 µs").arg(f).arg(b).arg(w);
  }
  if (sync_->currentIndex() != 0) parts << "sync " + sync_->currentText();
  parts << knobs_.summary(kCostFlagKnobs);
  if (trainsModel() && optimizer_->currentIndex() != 0) parts << optimizer_->currentText();
  return parts.isEmpty() ? QString("defaults") : parts.join(", ");
}

double PlanPanel::knobValue(std::string_view key) const {
  auto* spin = qobject_cast<QDoubleSpinBox*>(knobs_.widget(key));
  return spin ? spin->value() : 0;
}

QWidget* PlanPanel::knobWidget(std::string_view key) const {
  return knobs_.widget(key);
}

}  // namespace ps::ui
