#include "ui/PlanPanelWidgets.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPalette>
#include <QSpinBox>
#include <QStandardItemModel>

#include "runtime/schedules/Schedule.h"

namespace ps::ui::panelwidgets {

QSpinBox* spin(QWidget* parent, const char* name, int lo, int hi, const char* tip) {
  auto* s = new QSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setToolTip(tip);
  return s;
}

QDoubleSpinBox* dspin(QWidget* parent, const char* name, double hi, int decimals,
                      const char* suffix, const char* tip) {
  auto* s = new QDoubleSpinBox(parent);
  s->setObjectName(name);
  s->setRange(0, hi);
  s->setDecimals(decimals);
  s->setSuffix(suffix);
  s->setToolTip(tip);
  return s;
}

// A combo as wide as the dock gives it, not as its longest entry ("cuda — no CUDA device ...").
void narrow(QComboBox* c) {
  c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  c->setMinimumContentsLength(6);
}

QComboBox* combo(QWidget* parent, const char* name, const QStringList& names, const char* tip) {
  auto* c = new QComboBox(parent);
  c->setObjectName(name);
  for (const QString& n : names)
    c->addItem(n, n);
  narrow(c);
  c->setToolTip(tip);
  return c;
}

const std::vector<BackendEntry>& backendEntries() {
  static const std::vector<BackendEntry> entries = [] {
    std::vector<BackendEntry> out;
    for (const runtime::BackendInfo& row : runtime::backends()) {
      BackendEntry e{row.available(), row.details ? row.details() : std::string(row.summary)};
      out.push_back(std::move(e));
    }
    return out;
  }();
  return entries;
}

QString backendsTip() {
  QStringList parts;
  for (const runtime::BackendInfo& row : runtime::backends())
    parts << QString::fromUtf8(row.name.data(), static_cast<int>(row.name.size())) + ": " +
                 QString::fromUtf8(row.summary.data(), static_cast<int>(row.summary.size()));
  return parts.join(' ');
}

// Grouped by family: a disabled header row before each group; the name in Qt::UserRole.
QComboBox* scheduleCombo(QWidget* parent) {
  auto* c = new QComboBox(parent);
  c->setObjectName("scheduleCombo");
  auto* model = new QStandardItemModel(c);
  QString family;
  for (const auto& s : runtime::scheduleRegistry()) {
    if (QString::fromStdString(s.family) != family) {
      family = QString::fromStdString(s.family);
      auto* header = new QStandardItem(family);
      header->setFlags(Qt::NoItemFlags);
      QFont f = header->font();
      f.setBold(true);
      header->setFont(f);
      model->appendRow(header);
    }
    auto* item = new QStandardItem("   " + QString::fromStdString(s.name));
    item->setData(QString::fromStdString(s.name), Qt::UserRole);
    item->setToolTip(QString::fromStdString(
        s.summary +
        (s.constraints.empty() || s.constraints == "none" ? "" : "  [" + s.constraints + "]")));
    model->appendRow(item);
  }
  c->setModel(model);
  narrow(c);
  c->setToolTip(
      "The pipeline schedule: the order each rank runs its forwards and backwards in "
      "(hover an entry for what it is and what it needs).");
  return c;
}

// Small secondary text (hints, summaries).
QLabel* note(QWidget* parent, const char* name) {
  auto* l = new QLabel(parent);
  l->setObjectName(name);
  l->setWordWrap(true);
  QFont f = l->font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  l->setFont(f);
  return l;
}

// The error's red follows the palette: a darker red on light windows, a lighter one on dark.
void colourError(QLabel* label, const QPalette& palette) {
  QPalette p = label->palette();
  const bool dark = palette.color(QPalette::Window).lightness() < 128;
  p.setColor(QPalette::WindowText, dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xc6, 0x28, 0x28));
  label->setPalette(p);
}

// A knob in error: tinted red, its text red, in the style's own drawing (a style sheet would
// replace the native frame and arrows of that one widget).
void markInvalid(QWidget* w, bool invalid) {
  if (!invalid) {
    w->setPalette(QPalette());
    return;
  }
  QPalette p = w->palette();
  const bool dark = p.color(QPalette::Window).lightness() < 128;
  const QColor tint = dark ? QColor(0x5a, 0x1e, 0x1e) : QColor(0xfd, 0xe2, 0xe2);
  const QColor text = dark ? QColor(0xff, 0xb4, 0xab) : QColor(0xb7, 0x1c, 0x1c);
  for (auto role : {QPalette::Base, QPalette::Button})
    p.setColor(role, tint);
  for (auto role : {QPalette::Text, QPalette::ButtonText})
    p.setColor(role, text);
  w->setPalette(p);
}

}  // namespace ps::ui::panelwidgets
