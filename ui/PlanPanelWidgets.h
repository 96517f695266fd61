#pragma once
// The plan panel's widget builders and looks (internal to ui/PlanPanel*.cpp): knobs with their
// name, range and tooltip, the grouped schedule list, small notes, the red of errors.

#include <QString>
#include <QStringList>

#include <string>
#include <string_view>
#include <vector>

#include "runtime/run/Backends.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPalette;
class QPushButton;
class QToolButton;
class QSpinBox;
class QWidget;

namespace ps::ui::panelwidgets {

QSpinBox* spin(QWidget* parent, const char* name, int lo, int hi, const char* tip);
QDoubleSpinBox* dspin(QWidget* parent, const char* name, double hi, int decimals,
                      const char* suffix, const char* tip);
// A combo as wide as the dock gives it, not as its longest entry ("cuda — no CUDA device ...").
void narrow(QComboBox* c);
// Entries named `names` (each also its Qt::UserRole data).
QComboBox* combo(QWidget* parent, const char* name, const QStringList& names, const char* tip);
// Grouped by family: a disabled header row before each group; the name in Qt::UserRole.
QComboBox* scheduleCombo(QWidget* parent);
QPushButton* button(QWidget* parent, const char* name, const QString& text, const QString& tip);
// A section's "▸ More" toggle: a flat arrow beside its text, pointing right (shut).
QToolButton* disclosure(QWidget* parent, const char* name, const QString& text, const char* tip);
// An error message: word-wrapped, selectable, hidden until there is one.
QLabel* errorLabel(QWidget* parent, const char* name);
// The registry's backends, in its order (an entry's index is its row's id), described.
QComboBox* backendCombo(QWidget* parent);
// Small secondary text (hints, summaries), word-wrapped.
QLabel* note(QWidget* parent, const char* name);

// A backend as the Backend list shows it: whether it runs here and what it runs on, asked once
// per process (cuda's first query starts the CUDA runtime), by registry id.
struct BackendEntry {
  runtime::BackendAvailability availability;
  std::string details;  // the row's details (kernels, devices), else its summary
};
const std::vector<BackendEntry>& backendEntries();
// The list's own tooltip: "sim: <summary> cpu: <summary> ..." over the registry's rows.
QString backendsTip();

// The Backend list's entries, one per registry row: the plan feature each refuses
// (`refusals[id]`, the runtime's message; empty: none), else whether it runs here and on what.
void describeBackendEntries(QComboBox* backends, const std::vector<std::string>& refusals);
// The combo entry whose name (Qt::UserRole) is `name`; blank when it has none (a schedule read
// from a CSV file), rather than an entry that would not be what reruns.
void select(QComboBox* c, std::string_view name);
std::string nameOf(const QComboBox* c);
// Why the chosen backend cannot run here (its registry row's availability); empty: it can.
std::string unavailable(runtime::Backend backend);

// The error's red follows the palette: a darker red on light windows, a lighter one on dark.
void colourError(QLabel* label, const QPalette& palette);
// A knob in error: tinted red, its text red; or back to the inherited palette.
void markInvalid(QWidget* w, bool invalid);
// A knob an imported run did not record: greyed, its tooltip says so instead of how to set it;
// or back to its own tooltip.
void markUnrecorded(QWidget* w, bool unrecorded);

}  // namespace ps::ui::panelwidgets
