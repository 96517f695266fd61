#pragma once
// Every plan knob once (issue 33 §1): its config_json/preset key, its CLI flag, its label, its
// help text, the PlanSpec field it sets, its range or words, and when config_json records it.
// From this table the CLI registers its PLAN flags (app/cli/PlanOptions.cpp), config_json and
// preset files are read (RunConfig.cpp, Presets.cpp) and written (PlanConfigJson.cpp), the
// compare table labels its values (ConfigKnobs.cpp) and the app's Plan panel builds its widget
// (ui/PlanKnobWidgets.cpp). A knob is then a row here plus the feature that uses it.
//
// The rows are in config_json's key order (runs written before the table load and rerun byte
// for byte). A few knobs are shaped by the built plan rather than copied from the spec (the
// schedule, shape, boundaries, steps, …): their rows say `fromPlan` and planConfigJson writes
// them itself; their readers are special only where the value's JSON form differs.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/run/PlanBuilder.h"

namespace ps::runtime {

// The PlanSpec field a knob sets, as an accessor (nested fields, e.g. uniform.fwdUs, too).
using KnobField = std::variant<std::monostate, int& (*)(PlanSpec&),
                               std::optional<int>& (*)(PlanSpec&), double& (*)(PlanSpec&),
                               std::optional<double>& (*)(PlanSpec&), bool& (*)(PlanSpec&),
                               std::string& (*)(PlanSpec&), std::vector<double>& (*)(PlanSpec&)>;

// How a value reads in the compare table and the history (ConfigKnobs.cpp).
enum class KnobFormat { Text, Number, Us, MiB, Gbps, Flag, IntList, NumberList, File };

// Which flags a command takes: `explore` takes only the cost and device ones.
enum class KnobGroup { Plan, Cost };

// How the app's Plan panel shows a knob (ui/PlanKnobWidgets.cpp): the widget follows the field's
// type (a check box for a flag, a combo for words, a spin box for a number, a line edit for text
// or a list), its range the row's, its tooltip the row's help and its label the row's label
// (capitalised) unless `label` says otherwise. Everything here is optional.
struct KnobPanel {
  std::string_view label;        // the panel's words, e.g. "Deferred W at most"
  std::string_view placeholder;  // a line edit's example, e.g. "e.g. 1,1,2,1"
  std::string_view none;         // a spin box's text at its minimum, e.g. "no bound"
  std::string_view prefix;       // e.g. "slack "
  std::string_view unit;         // a spin box's suffix when not the format's (" µs", " MiB")
  int decimals = 2;              // a double spin box's
  double max = 0;                // a spin box's top when below the row's (a narrow dock)
  bool bare = false;             // no suffix: the line's label says the unit
  bool movesCut = false;         // a change moves the partitioner's cut: hand-placed boundaries go
  bool bespoke = false;  // the panel draws it itself (the shape, links, files) or not at all
};

struct PlanKnob {
  std::string_view key;    // config_json and preset key, e.g. "max_deferred_w"
  std::string_view flag;   // CLI flag, e.g. "--max-deferred-w"; empty: none
  std::string_view label;  // short label for people, e.g. "max deferred W"
  std::string_view help;   // the flag's help and the Plan panel's tooltip
  KnobField field;         // monostate: handled by name (schedule, boundaries, optimizer_sync)
  KnobFormat format = KnobFormat::Number;
  KnobGroup group = KnobGroup::Plan;
  double min = 0, max = 0;                    // min < max: the accepted range
  std::span<const std::string_view> choices;  // non-empty: the accepted words
  // config_json: written when this says so (null: always); an empty text is written as
  // `emptyAs` (the default the feature uses).
  bool (*written)(const PlanSpec&) = nullptr;
  std::string_view emptyAs;
  bool fromPlan = false;  // planConfigJson writes it from the built plan
  bool positive = false;  // presets: a number must be > 0 (else >= 0)
  KnobPanel panel;
};

// Every knob, in config_json's key order.
std::span<const PlanKnob> planKnobs();
// The row of `key`, or null.
const PlanKnob* findPlanKnob(std::string_view key);

}  // namespace ps::runtime
