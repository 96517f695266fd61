// The Plan panel's generic knobs come from the knob table (issue 33 §1): every row the panel does
// not draw itself has a widget under "More", labelled and tipped from its row, and a value set
// there is what request() gives, and what showRequest() shows again.

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <optional>
#include <string>
#include <variant>

#include "runtime/run/PlanKnobs.h"
#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

using runtime::PlanKnob;
using runtime::PlanSpec;

bool drawnFromTheTable(const PlanKnob& row) {
  return !row.panel.bespoke && !std::holds_alternative<std::monostate>(row.field);
}

// Turns the row's widget away from its default, as a user would.
void turn(const PlanKnob& row, QWidget* w) {
  if (auto* s = qobject_cast<QSpinBox*>(w)) s->setValue(s->minimum() + 2);
  if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
    d->setValue(d->minimum() + std::min(0.25, (d->maximum() - d->minimum()) / 4));
  if (auto* c = qobject_cast<QCheckBox*>(w)) c->setChecked(!c->isChecked());
  if (auto* c = qobject_cast<QComboBox*>(w)) c->setCurrentIndex(c->currentIndex() == 0 ? 1 : 0);
  if (auto* e = qobject_cast<QLineEdit*>(w))
    e->setText(std::holds_alternative<std::vector<double>& (*)(PlanSpec&)>(row.field) ? "1,2"
                                                                                      : "x2");
}

// What a widget shows, as text.
QString shown(QWidget* w) {
  if (auto* s = qobject_cast<QSpinBox*>(w)) return QString::number(s->value());
  if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) return QString::number(d->value());
  if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked() ? "on" : "off";
  if (auto* c = qobject_cast<QComboBox*>(w)) return c->currentText();
  if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
  return "?";
}

// The row's field of `spec`, as text (to see that a turned knob changed it).
std::string fieldText(const PlanKnob& row, PlanSpec spec) {
  std::string out;
  std::visit(
      [&](auto get) {
        if constexpr (!std::is_same_v<decltype(get), std::monostate>) {
          const auto& v = get(spec);
          using T = std::remove_cvref_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>)
            out = v;
          else if constexpr (std::is_same_v<T, bool>)
            out = v ? "on" : "off";
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            for (double x : v)
              out += std::to_string(x) + ",";
          else if constexpr (std::is_same_v<T, std::optional<int>> ||
                             std::is_same_v<T, std::optional<double>>)
            out = v ? std::to_string(*v) : "unset";
          else
            out = std::to_string(v);
        }
      },
      row.field);
  return out;
}

TEST(PlanPanelKnobTable, EveryRowTheTableDrawsHasAWidgetUnderMore) {
  PlanPanel panel;
  auto* more = panel.findChild<QWidget*>("moreGroup");
  ASSERT_TRUE(more);
  int drawn = 0;
  for (const PlanKnob& row : runtime::planKnobs()) {
    QWidget* w = panel.knobWidget(row.key);
    if (!drawnFromTheTable(row)) {
      EXPECT_EQ(w, nullptr) << row.key;
      continue;
    }
    ASSERT_NE(w, nullptr) << row.key << " has no widget in the Plan panel";
    EXPECT_TRUE(more->isAncestorOf(w)) << row.key;
    EXPECT_EQ(w->toolTip().toStdString(), std::string(row.help)) << row.key;
    ++drawn;
  }
  EXPECT_GE(drawn, 30);
}

TEST(PlanPanelKnobTable, ATurnedKnobIsWhatRequestGivesAndShowRequestShowsIt) {
  PlanPanel panel;
  const runtime::RunPlanRequest before = panel.request();
  for (const PlanKnob& row : runtime::planKnobs())
    if (drawnFromTheTable(row)) turn(row, panel.knobWidget(row.key));
  const runtime::RunPlanRequest after = panel.request();
  PlanPanel again;
  again.showRequest(after);
  for (const PlanKnob& row : runtime::planKnobs()) {
    if (!drawnFromTheTable(row)) continue;
    // A word without its partner is left out (--fill alone is refused); every partner is on.
    EXPECT_NE(fieldText(row, after.spec), fieldText(row, before.spec)) << row.key;
    EXPECT_EQ(shown(again.knobWidget(row.key)), shown(panel.knobWidget(row.key))) << row.key;
  }
  // Untouched, the panel gives back what it was shown.
  const runtime::RunPlanRequest reread = again.request();
  for (const PlanKnob& row : runtime::planKnobs())
    if (drawnFromTheTable(row)) {
      EXPECT_EQ(fieldText(row, reread.spec), fieldText(row, after.spec)) << row.key;
    }
}

}  // namespace
}  // namespace ps::ui
