#pragma once
// The presets of DESIGN §8 (resources/presets/*.json, compiled in): a classic figure or a seed
// paper's configuration as one plan, with its title, reference, a teaching paragraph, the
// analytic formula where one exists and the headline number its test checks.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"
#include "trace/Result.h"

namespace ps::runtime {

// The preset the app's demo and `pipescope-cli demo` simulate.
inline constexpr const char* kDemoPreset = "1f1b";

struct PresetFile {
  std::string fileName;  // e.g. "1f1b.json"
  std::string_view text;
};
// Every file of resources/presets, as built into this binary (PresetsEmbedded.cpp).
const std::vector<PresetFile>& embeddedPresetFiles();

struct Preset {
  std::string name;  // lower case, the schedule's or the system's name
  std::string title;
  std::string reference;
  std::string teaching;
  std::string formula;  // empty where the schedule has no closed form
  PlanSpec spec;
  struct Headline {
    std::string metric;  // "bubble_ratio" | "steady_bubble_ratio" | "step_time_ns"
    double value = 0;
    std::string text;  // the figure's claim in words
  } headline;
};

// The plan keys a preset's "plan" object takes: the PLAN flags' names in snake case.
// schedule, stages, microbatches, chunks, layers, boundaries, steps, optimizer_sync,
// recompute, fwd_us, bwd_us, wgrad_us, act_mb, param_mb, link_gbps, link_latency_us, ...; a
// "schedule_file" (a torch CSV, relative to a preset file's folder) instead of "schedule".
Result<Preset> parsePreset(std::string_view json, const std::string& source);

// The built-in presets, sorted by name; a file that does not parse is a build error caught by
// the tests, and is left out here with its error in `errors`.
struct PresetList {
  std::vector<Preset> presets;
  std::vector<std::string> errors;
};
const PresetList& builtinPresets();

// A built-in preset by name, or a preset file when `nameOrPath` ends in .json; errors list the
// names there are.
Result<Preset> findPreset(const std::string& nameOrPath);

// A simulation of the preset's plan (what Papers, the demo and `demo` run).
Result<RunPlanRequest> presetRequest(const std::string& nameOrPath);
// A preset's run named after its system, as the app's Papers menu names it: the title up to its
// colon ("BPipe", "BPipe's baseline"), the whole title without one.
std::string presetRunName(const Preset& preset);

}  // namespace ps::runtime
