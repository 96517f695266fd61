#pragma once
// Every plan knob once (issue 33 §1): its config_json/preset key, its CLI flag, its label, its
// help text, the PlanSpec field it sets, its range or words, and when config_json records it.
// From this table the CLI registers its PLAN flags (app/cli/PlanOptions.cpp), config_json and
// preset files are read (RunConfig.cpp, Presets.cpp) and written (PlanConfigJson.cpp). A knob
// is then a row here plus the feature that uses it.
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
};

// Every knob, in config_json's key order.
std::span<const PlanKnob> planKnobs();
// The row of `key`, or null.
const PlanKnob* findPlanKnob(std::string_view key);

}  // namespace ps::runtime
