#pragma once
// A run's knobs as people read them: the history's names, the compare table and the config
// tooltip all show these, so that two runs are told apart by the same words everywhere. A plan
// knob reads under its row's label and format in the knob table (PlanKnobs.h): a new row shows
// here without an edit.

#include <string>
#include <string_view>
#include <vector>

#include "trace/analysis/PathName.h"

namespace ps::runtime {

struct ConfigKnob {
  std::string key;    // stable id for matching runs, e.g. "link_gbps", "import.files"
  std::string label;  // short display label, e.g. "link"
  std::string value;  // display value, e.g. "10 Gb/s"
};

// A run's knobs from its config_json, flattened (a model run's "plan" merged in; the embedded
// "costs" and the "import" object summarised, not dumped) in a fixed readable order: backend
// ("sim" for a plan without one), schedule and shape, costs, links, model, optimizer, device,
// import; then any other top-level scalar under its own key. Values are short: file paths as
// their base names, "free" for unlimited links, "on"/"off" for flags. Knobs a run does not use
// are left out (the uniform cost flags of a run with a cost file). Text that is not a JSON
// object gives no knobs.
std::vector<ConfigKnob> configKnobs(std::string_view configJson);

}  // namespace ps::runtime
