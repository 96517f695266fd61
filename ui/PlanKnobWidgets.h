#pragma once
// The Plan panel's generic knobs: one widget per row of the plan knob table (runtime/run/
// PlanKnobs.h) that the panel does not draw itself, built, shown, read back and summarised from
// the row alone. A new knob is then a row in the table: it shows under "More" without an edit
// here or in the panel.

#include <QString>
#include <QStringList>

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/run/PlanKnobs.h"

class QFormLayout;
class QWidget;

namespace ps::ui {

class KnobWidgets {
 public:
  // The panel's own widgets placed among the generic ones, at their row's key (the link latency,
  // the optimizer sync).
  struct BespokeWidget {
    std::string_view key;
    QString label;
    QWidget* widget;
  };
  using Bespoke = std::vector<BespokeWidget>;

  // Builds a widget for every generic row under `parent`, laid out in `form` in the panel's
  // order (kMoreLayout, then every other row in the table's order; a knob marked beside its
  // partner shares its line). `changed(movesCut)` is called when the user changes one.
  void build(QWidget* parent, QFormLayout* form, const Bespoke& bespoke,
             std::function<void(bool movesCut)> changed);

  // Shows the rows' values of `spec` and remembers them as the untouched values.
  void show(const runtime::PlanSpec& spec);
  // Writes the knobs the user changed since show() into `spec`; a word that means nothing
  // without its partner (--fill without --frozen-us) is cleared.
  void read(runtime::PlanSpec& spec) const;
  // "label value" for every knob not at its default (for the More summary), skipping `skip`.
  QStringList summary(std::span<const std::string_view> skip) const;

  // The widget of row `key`; null when the row has none.
  QWidget* widget(std::string_view key) const;
  // Every generic row's key, in layout order.
  std::vector<std::string_view> keys() const;

 private:
  struct Entry {
    const runtime::PlanKnob* row;
    QWidget* widget;
  };
  std::vector<Entry> entries_;
};

// A message in the panel's words (issue 34 item 10): each plan flag it names ("--layers",
// "--max-deferred-w") becomes the label its control has here ("Layers", "Deferred W at most").
// Flags no knob row has are left as they are.
QString inPanelWords(const std::string& message);

}  // namespace ps::ui
