#include "ui/PlanKnobWidgets.h"

#include <cctype>

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QVariant>

#include <algorithm>
#include <climits>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <variant>

#include "ui/PlanKnobValues.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {
namespace {

using runtime::PlanKnob;
using runtime::PlanSpec;

// The panel's order under "More"; "+key" shares the line of the key before it. Rows not named
// here follow in the table's order, each on its line.
constexpr std::string_view kMoreLayout[] = {"link_latency_us",
                                            "act_mb",
                                            "fwd_us",
                                            "+bwd_us",
                                            "+wgrad_us",
                                            "optimizer_sync",
                                            "recompute",
                                            "split_backward",
                                            "max_deferred_w",
                                            "forward_only",
                                            "balance_activations",
                                            "rank_speed",
                                            "rank_memory_gb",
                                            "dp",
                                            "topology",
                                            "inter_gbps",
                                            "+inter_latency_us",
                                            "mapping",
                                            "partition",
                                            "+time_slack",
                                            "frozen_us",
                                            "+fill",
                                            "stage_graph",
                                            "a2a_mb",
                                            "+a2a",
                                            "fetch_mb",
                                            "+fetch",
                                            "weight_versions",
                                            "token_slices",
                                            "seq_lengths",
                                            "+microbatching"};

// "max_deferred_w" -> "maxDeferredW", less a unit at its end ("wgrad_us" -> "wgrad").
QString knobObjectName(std::string_view key) {
  for (std::string_view unit : {"_us", "_gb"})
    if (key.size() > unit.size() && key.ends_with(unit)) key.remove_suffix(unit.size());
  QString out;
  bool upper = false;
  for (char c : key) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? QChar(c).toUpper() : QChar(c);
    upper = false;
  }
  return out;
}

QString knobPanelLabel(const PlanKnob& row) {
  if (!row.panel.label.empty()) return knobvalues::qs(row.panel.label);
  QString label = knobvalues::qs(row.label);
  if (!label.isEmpty()) label[0] = label[0].toUpper();
  return label;
}

QString knobUnit(const PlanKnob& row) {
  if (row.panel.bare) return {};
  if (!row.panel.unit.empty()) return knobvalues::qs(row.panel.unit);
  switch (row.format) {
    case runtime::KnobFormat::Us:
      return " µs";
    case runtime::KnobFormat::MiB:
      return " MiB";
    case runtime::KnobFormat::Gbps:
      return " Gb/s";
    default:
      return {};
  }
}

template <typename Spin>
void setUpKnobSpin(Spin* s, const PlanKnob& row, double lo, double hi) {
  if (row.min < row.max) lo = row.min, hi = row.max;
  if (row.panel.max > 0) hi = std::min(hi, row.panel.max);
  s->setRange(static_cast<decltype(s->value())>(lo), static_cast<decltype(s->value())>(hi));
  s->setSpecialValueText(knobvalues::qs(row.panel.none));
  s->setPrefix(knobvalues::qs(row.panel.prefix));
  s->setSuffix(knobUnit(row));
}

QWidget* makeKnobWidget(const PlanKnob& row, QWidget* parent) {
  QWidget* w = nullptr;
  QString kind;
  std::visit(
      [&](auto get) {
        if constexpr (std::is_same_v<decltype(get), std::monostate>) {
          return;
        } else {
          using T = std::remove_reference_t<decltype(get(std::declval<PlanSpec&>()))>;
          if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::optional<int>>) {
            auto* s = new QSpinBox(parent);
            setUpKnobSpin(s, row, 0, INT_MAX);
            w = s, kind = "Spin";
          } else if constexpr (std::is_same_v<T, double> ||
                               std::is_same_v<T, std::optional<double>>) {
            auto* s = new QDoubleSpinBox(parent);
            s->setDecimals(row.panel.decimals);
            setUpKnobSpin(s, row, 0, 1e9);
            w = s, kind = "Spin";
          } else if constexpr (std::is_same_v<T, bool>) {
            w = new QCheckBox(knobPanelLabel(row), parent), kind = "Check";
          } else if constexpr (std::is_same_v<T, std::string>) {
            if (!row.choices.empty()) {
              auto* c = new QComboBox(parent);
              for (std::string_view word : row.choices)
                c->addItem(knobvalues::qs(word), knobvalues::qs(word));
              panelwidgets::narrow(c);
              w = c, kind = "Combo";
            }
          }
          if (!w) {  // text and lists
            auto* e = new QLineEdit(parent);
            e->setPlaceholderText(knobvalues::qs(row.panel.placeholder));
            w = e, kind = "Edit";
          }
        }
      },
      row.field);
  w->setObjectName(knobObjectName(row.key) + kind);
  w->setToolTip(knobvalues::qs(row.help));
  return w;
}

bool isGenericKnob(const PlanKnob& row) {
  return !row.panel.bespoke && !std::holds_alternative<std::monostate>(row.field);
}

void connectKnobChange(QWidget* w, std::function<void()> changed) {
  if (auto* s = qobject_cast<QSpinBox*>(w))
    QObject::connect(s, &QSpinBox::valueChanged, s, changed);
  else if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
    QObject::connect(d, &QDoubleSpinBox::valueChanged, d, changed);
  else if (auto* c = qobject_cast<QCheckBox*>(w))
    QObject::connect(c, &QCheckBox::toggled, c, changed);
  else if (auto* b = qobject_cast<QComboBox*>(w))
    QObject::connect(b, &QComboBox::currentIndexChanged, b, changed);
  else if (auto* e = qobject_cast<QLineEdit*>(w))
    QObject::connect(e, &QLineEdit::textEdited, e, changed);
}

struct KnobLine {
  QString label;
  std::vector<QWidget*> widgets;
};

void addKnobLine(QFormLayout* form, const KnobLine& line) {
  if (line.widgets.size() == 1) {
    QWidget* w = line.widgets.front();
    if (qobject_cast<QCheckBox*>(w))
      form->addRow(w);
    else
      form->addRow(line.label, w);
    return;
  }
  auto* row = new QHBoxLayout;
  row->setSpacing(2);
  const bool spinsOnly = std::all_of(line.widgets.begin(), line.widgets.end(), [](QWidget* w) {
    return qobject_cast<QAbstractSpinBox*>(w) != nullptr;
  });
  for (QWidget* w : line.widgets) {
    if (spinsOnly) {
      // Two or three spin boxes fit a narrow dock without their buttons, sharing the row at
      // their minimum width (each asked for its range's widest value).
      auto* spin = static_cast<QAbstractSpinBox*>(w);
      spin->setButtonSymbols(QAbstractSpinBox::NoButtons);
      spin->setSizePolicy(QSizePolicy::Ignored, spin->sizePolicy().verticalPolicy());
      row->addWidget(w, 1);
      continue;
    }
    row->addWidget(w, qobject_cast<QLineEdit*>(w) ? 1 : 0);
  }
  form->addRow(line.label, row);
}

}  // namespace

void KnobWidgets::build(QWidget* parent, QFormLayout* form, const Bespoke& bespoke,
                        std::function<void(bool)> changed) {
  std::vector<std::string_view> order;
  for (std::string_view key : kMoreLayout)
    order.push_back(key);
  for (const PlanKnob& row : runtime::planKnobs())
    if (isGenericKnob(row) && std::find_if(order.begin(), order.end(), [&](std::string_view k) {
                                return k == row.key ||
                                       (k.starts_with('+') && k.substr(1) == row.key);
                              }) == order.end())
      order.push_back(row.key);
  std::vector<KnobLine> lines;
  for (std::string_view entry : order) {
    const bool beside = entry.starts_with('+') && !lines.empty();
    const std::string_view key = entry.starts_with('+') ? entry.substr(1) : entry;
    auto own = std::find_if(bespoke.begin(), bespoke.end(),
                            [&](const BespokeWidget& b) { return b.key == key; });
    const PlanKnob* row = runtime::findPlanKnob(key);
    QWidget* w = own != bespoke.end() ? own->widget : nullptr;
    if (!w && row && isGenericKnob(*row)) {
      w = makeKnobWidget(*row, parent);
      entries_.push_back({row, w});
      const bool moves = row->panel.movesCut;
      connectKnobChange(w, [changed, moves] { changed(moves); });
    }
    if (!w) continue;
    if (beside)
      lines.back().widgets.push_back(w);
    else
      lines.push_back({own != bespoke.end() ? own->label : knobPanelLabel(*row), {w}});
  }
  for (const KnobLine& line : lines)
    addKnobLine(form, line);
}

void KnobWidgets::show(const runtime::PlanSpec& spec) {
  PlanSpec shown = spec;
  for (const Entry& e : entries_) {
    knobvalues::showValue(*e.row, e.widget, shown);
    knobvalues::snapshot(e.widget);
  }
}

void KnobWidgets::read(runtime::PlanSpec& spec) const {
  for (const Entry& e : entries_)
    if (knobvalues::touched(e.widget)) knobvalues::readValue(*e.row, e.widget, spec);
  knobvalues::clearOrphanWords(spec);
}

QStringList KnobWidgets::summary(std::span<const std::string_view> skip) const {
  PlanSpec now, defaults;
  for (const Entry& e : entries_)
    knobvalues::readValue(*e.row, e.widget, now);
  knobvalues::clearOrphanWords(now);
  QStringList parts;
  for (const Entry& e : entries_) {
    if (std::find(skip.begin(), skip.end(), e.row->key) != skip.end()) continue;
    const QString value = knobvalues::summaryText(*e.row, now);
    if (value == knobvalues::summaryText(*e.row, defaults)) continue;
    const QString label = knobvalues::qs(e.row->label);
    parts << (value == "on" ? label : label + " " + value);
  }
  return parts;
}

QWidget* KnobWidgets::widget(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.row->key == key) return e.widget;
  return nullptr;
}

std::vector<std::string_view> KnobWidgets::keys() const {
  std::vector<std::string_view> out;
  for (const Entry& e : entries_)
    out.push_back(e.row->key);
  return out;
}

QString inPanelWords(const std::string& message) {
  QString out;
  std::size_t at = 0;
  while (at < message.size()) {
    const std::size_t dash = message.find("--", at);
    if (dash == std::string::npos) break;
    std::size_t end = dash + 2;
    while (end < message.size() &&
           (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-'))
      ++end;
    out += QString::fromStdString(message.substr(at, dash - at));
    const std::string_view flag(message.data() + dash, end - dash);
    const PlanKnob* row = nullptr;
    for (const PlanKnob& k : runtime::planKnobs())
      if (k.flag == flag) row = &k;
    out += row ? knobPanelLabel(*row) : QString::fromStdString(std::string(flag));
    at = end;
  }
  return out + QString::fromStdString(message.substr(std::min(at, message.size())));
}

}  // namespace ps::ui
