#pragma once
// The import dialog's own words for what the import core (runtime::importRun, shared with
// `pipescope-cli import`) words as CLI flags: "try another --align mode" reads "try another
// Clock alignment", "--threads-as-ranks" reads "'Each thread is a rank'" (issue 34 item 10). One
// table, flag -> the dialog's label, used by the dialog to name its controls and by every
// message the import shows; plan flags (a schedule's simulation) are then named as the Plan
// panel's (inPanelWords).

#include <QString>

namespace ps::ui {

// The dialog's labels, where it and the messages take them from.
namespace importlabels {
inline constexpr const char* kAlign = "Clock alignment";
inline constexpr const char* kThreadsAsRanks = "Each thread is a rank";
inline constexpr const char* kRanks = "Ranks";
inline constexpr const char* kRules = "Label rules";
inline constexpr const char* kName = "Run name";
}  // namespace importlabels

// An alignment mode's entry in the Clock alignment box ("Wall clock"); empty for an unknown one.
QString alignModeLabel(const QString& mode);
// The same with why one would pick it, as the box lists it.
QString alignModeChoice(const QString& mode);

// `message` with the import's CLI flags named as the dialog's controls, then the plan's as the
// Plan panel's. Words without a flag stay as they are.
QString importWords(const QString& message);

// Whether an import's summary advises importing again with each thread a rank (a single-process
// trace whose threads hold overlapping compute), as the import core's note says it.
bool advisesThreadsAsRanks(const QString& summary);

}  // namespace ps::ui
