#include "ui/PlanPanelWidgets.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPalette>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>

#include "runtime/schedules/Schedule.h"
#include "ui/PlanPanel.h"

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

QPushButton* button(QWidget* parent, const char* name, const QString& text, const QString& tip) {
  auto* b = new QPushButton(text, parent);
  b->setObjectName(name);
  if (!tip.isEmpty()) b->setToolTip(tip);
  return b;
}

QToolButton* disclosure(QWidget* parent, const char* name, const QString& text, const char* tip) {
  auto* t = new QToolButton(parent);
  t->setObjectName(name);
  t->setText(text);
  t->setAutoRaise(true);
  t->setArrowType(Qt::RightArrow);
  t->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  t->setToolTip(tip);
  return t;
}

QLabel* errorLabel(QWidget* parent, const char* name) {
  auto* l = new QLabel(parent);
  l->setObjectName(name);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setVisible(false);
  return l;
}

QComboBox* backendCombo(QWidget* parent) {
  QStringList names;
  for (const runtime::BackendInfo& row : runtime::backends())
    names << QString::fromUtf8(row.name.data(), static_cast<int>(row.name.size()));
  QComboBox* c = combo(parent, "backendCombo", names, "");
  c->setToolTip(backendsTip());
  describeBackendEntries(c, {});
  return c;
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
void markUnrecorded(QWidget* w, bool unrecorded) {
  static constexpr const char* kOwnTip = "ownToolTip";
  const QVariant own = w->property(kOwnTip);
  if (!unrecorded) {
    if (own.isValid()) w->setToolTip(own.toString());
    w->setProperty(kOwnTip, QVariant());
    return;
  }
  if (!own.isValid()) w->setProperty(kOwnTip, w->toolTip());
  w->setToolTip("Not recorded in this imported run: it has no value to show or change here.");
}

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

// The combo entry whose name (Qt::UserRole) is `name`; blank when it has none (a schedule read
// from a CSV file), rather than an entry that would not be what reruns.
void select(QComboBox* c, std::string_view name) {
  c->setCurrentIndex(c->findData(QString::fromUtf8(name.data(), static_cast<int>(name.size()))));
}

std::string nameOf(const QComboBox* c) {
  return c->currentData().toString().toStdString();
}

// Why the chosen backend cannot run here (its registry row's availability); empty: it can.
std::string unavailable(runtime::Backend backend) {
  const auto& here = backendEntries()[static_cast<std::size_t>(backend)].availability;
  return here.ok ? std::string() : here.message;
}

void describeBackendEntries(QComboBox* backends, const std::vector<std::string>& refusals) {
  auto* items = qobject_cast<QStandardItemModel*>(backends->model());
  if (!items) return;
  const auto& entries = backendEntries();
  for (const runtime::BackendInfo& row : runtime::backends()) {
    const auto id = static_cast<std::size_t>(row.id);
    QStandardItem* item = items->item(static_cast<int>(id));
    const runtime::BackendAvailability& here = entries[id].availability;
    const QString name = QString::fromUtf8(row.name.data(), static_cast<int>(row.name.size()));
    const QString reason = QString::fromStdString(here.reason);
    // Offered when it runs here, and says why not otherwise.
    if (!here.ok) item->setFlags(Qt::NoItemFlags);
    const std::string refusal = id < refusals.size() ? refusals[id] : std::string();
    if (refusal.empty()) {
      item->setText(here.ok ? name : name + " — " + reason);
      item->setToolTip(here.ok ? QString::fromStdString(entries[id].details) : reason);
      continue;
    }
    // The plan's own refusal first: a device would not change it ("--frozen-us: the cuda ...").
    const QString why = QString::fromStdString(refusal);
    item->setText(name + " — not with " + why.left(why.indexOf(':')));
    item->setToolTip(here.ok ? why : why + "\n(and " + QString::fromStdString(here.message) + ")");
  }
}

}  // namespace ps::ui::panelwidgets

namespace ps::ui {

runtime::CpuRunOptions appModelOptions() {
  runtime::CpuRunOptions options;
  options.model.block = runtime::BlockType::Transformer;
  options.model.hidden = 64;
  options.model.heads = 4;
  options.optimizer.kind = runtime::OptimizerKind::Adam;
  options.optimizer.lr = 0.001f;
  return options;
}

}  // namespace ps::ui
