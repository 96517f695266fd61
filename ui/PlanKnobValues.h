#pragma once
// A knob table row's value between a PlanSpec and the widget ui/PlanKnobWidgets.cpp built for it
// (a spin box, check box, combo or line edit, by the field's type): internal to the Plan panel.

#include <QString>
#include <QVariant>

#include <string_view>

#include "runtime/run/PlanKnobs.h"

class QWidget;

namespace ps::ui::knobvalues {

QString qs(std::string_view s);
// The word a combo shows for an empty value: the default the feature uses.
QString defaultWord(const runtime::PlanKnob& row);
// What a widget holds now, comparable with what it was shown.
QVariant valueOf(const QWidget* w);
// Remembers what `w` shows as the value it was shown; touched: changed since.
void snapshot(QWidget* w);
bool touched(const QWidget* w);
// The row's value of `spec` into its widget.
void showValue(const runtime::PlanKnob& row, QWidget* w, runtime::PlanSpec& spec);
// The widget's value into the row's field of `spec` (a combo's default word as "").
void readValue(const runtime::PlanKnob& row, const QWidget* w, runtime::PlanSpec& spec);
// The row's value in `spec` as the More summary writes it ("" unset, "on" for a flag).
QString summaryText(const runtime::PlanKnob& row, runtime::PlanSpec& spec);
// A word that means nothing without its partner (--fill without --frozen-us) is cleared: the
// flag alone is refused.
void clearOrphanWords(runtime::PlanSpec& spec);

}  // namespace ps::ui::knobvalues
