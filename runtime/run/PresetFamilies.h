#pragma once
// The built-in presets by family (issue 34 item 12): the app's Papers menu shows one submenu per
// family instead of one list of 52 entries taller than a screen. Each family lists its systems
// in reading order, each system's baseline ("<name>-baseline") right after it, so a system and
// the run it is compared with sit side by side.

#include <string_view>
#include <vector>

namespace ps::runtime {

struct PresetFamily {
  std::string_view title;    // the submenu's text, with its mnemonic ("&Classic schedules")
  std::string_view summary;  // what the papers of the family have in common
  std::vector<std::string_view> presets;  // names, in menu order
};

// Every built-in preset is in exactly one family (tests/ui/PapersMenuTest checks it against
// builtinPresets(), so a new preset file must be placed here).
const std::vector<PresetFamily>& presetFamilies();

}  // namespace ps::runtime
