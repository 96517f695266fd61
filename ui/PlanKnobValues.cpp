#include "ui/PlanKnobValues.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <cmath>
#include <optional>
#include <string>
#include <variant>

namespace ps::ui::knobvalues {
namespace {

using runtime::PlanKnob;
using runtime::PlanSpec;

// "1, 1, 2, 1" as numbers; a value that is not one becomes NaN, which buildPlan refuses naming
// the flag and the rank.
std::vector<double> numbersIn(const QString& text) {
  std::vector<double> out;
  if (text.trimmed().isEmpty()) return out;
  for (const QString& part : text.split(',')) {
    bool ok = false;
    const double v = part.trimmed().toDouble(&ok);
    out.push_back(ok ? v : std::nan(""));
  }
  return out;
}

QString textOf(const std::vector<double>& values) {
  QStringList parts;
  for (double v : values)
    parts << QString::number(v, 'g', 12);
  return parts.join(",");
}

}  // namespace

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

// The word a combo shows for an empty value: the default the feature uses.
QString defaultWord(const PlanKnob& row) {
  return qs(row.emptyAs.empty() ? row.choices.front() : row.emptyAs);
}

// What a widget holds now, comparable with what it was shown.
QVariant valueOf(const QWidget* w) {
  if (auto* s = qobject_cast<const QSpinBox*>(w)) return s->value();
  if (auto* s = qobject_cast<const QDoubleSpinBox*>(w)) return s->value();
  if (auto* c = qobject_cast<const QCheckBox*>(w)) return c->isChecked();
  if (auto* c = qobject_cast<const QComboBox*>(w)) return c->currentIndex();
  if (auto* e = qobject_cast<const QLineEdit*>(w)) return e->text();
  return {};
}

void snapshot(QWidget* w) {
  w->setProperty("shownValue", valueOf(w));
}

bool touched(const QWidget* w) {
  return valueOf(w) != w->property("shownValue");
}

// The row's value of `spec` into its widget.
void showValue(const PlanKnob& row, QWidget* w, PlanSpec& spec) {
  std::visit(
      [&](auto get) {
        if constexpr (!std::is_same_v<decltype(get), std::monostate>) {
          auto& v = get(spec);
          using T = std::remove_reference_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int>)
            static_cast<QSpinBox*>(w)->setValue(v);
          else if constexpr (std::is_same_v<T, std::optional<int>>)
            static_cast<QSpinBox*>(w)->setValue(v.value_or(0));
          else if constexpr (std::is_same_v<T, double>)
            static_cast<QDoubleSpinBox*>(w)->setValue(v);
          else if constexpr (std::is_same_v<T, std::optional<double>>)
            static_cast<QDoubleSpinBox*>(w)->setValue(v.value_or(0));
          else if constexpr (std::is_same_v<T, bool>)
            static_cast<QCheckBox*>(w)->setChecked(v);
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            static_cast<QLineEdit*>(w)->setText(textOf(v));
          else if (auto* c = qobject_cast<QComboBox*>(w)) {
            const int at = c->findData(qs(v));
            c->setCurrentIndex(at >= 0 ? at : c->findData(defaultWord(row)));
          } else {
            static_cast<QLineEdit*>(w)->setText(qs(v));
          }
        }
      },
      row.field);
}

// The widget's value into the row's field of `spec`.
void readValue(const PlanKnob& row, const QWidget* w, PlanSpec& spec) {
  std::visit(
      [&](auto get) {
        if constexpr (!std::is_same_v<decltype(get), std::monostate>) {
          auto& v = get(spec);
          using T = std::remove_reference_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::optional<int>>)
            v = static_cast<const QSpinBox*>(w)->value();
          else if constexpr (std::is_same_v<T, double>)
            v = static_cast<const QDoubleSpinBox*>(w)->value();
          else if constexpr (std::is_same_v<T, std::optional<double>>) {
            const double x = static_cast<const QDoubleSpinBox*>(w)->value();
            v = x > 0 ? std::optional<double>(x) : std::nullopt;
          } else if constexpr (std::is_same_v<T, bool>)
            v = static_cast<const QCheckBox*>(w)->isChecked();
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            v = numbersIn(static_cast<const QLineEdit*>(w)->text());
          else if (auto* c = qobject_cast<const QComboBox*>(w)) {
            const QString word = c->currentData().toString();
            v = word == defaultWord(row) ? std::string() : word.toStdString();
          } else {
            v = static_cast<const QLineEdit*>(w)->text().trimmed().toStdString();
          }
        }
      },
      row.field);
}

// The row's value in `spec` as the summary writes it ("" for an unset one).
QString summaryText(const PlanKnob& row, PlanSpec& spec) {
  QString out;
  std::visit(
      [&](auto get) {
        if constexpr (!std::is_same_v<decltype(get), std::monostate>) {
          const auto& v = get(spec);
          using T = std::remove_cvref_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int> || std::is_same_v<T, double>)
            out = QString::number(v);
          else if constexpr (std::is_same_v<T, std::optional<int>> ||
                             std::is_same_v<T, std::optional<double>>)
            out = v ? QString::number(*v) : QString();
          else if constexpr (std::is_same_v<T, bool>)
            out = v ? "on" : "";
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            out = textOf(v);
          else
            out = qs(v);
        }
      },
      row.field);
  return out;
}

// A word that means nothing without its partner (--fill without --frozen-us) is left out: the
// flag alone is refused.
void clearOrphanWords(PlanSpec& spec) {
  for (const PlanKnob& row : runtime::planKnobs())
    if (!row.choices.empty() && !row.emptyAs.empty() && row.written && !row.written(spec))
      if (auto* get = std::get_if<std::string& (*)(PlanSpec&)>(&row.field)) (*get)(spec).clear();
}

}  // namespace ps::ui::knobvalues
