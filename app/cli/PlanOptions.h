#pragma once
// The PLAN flags of DESIGN §5, shared by `sim` and `run`.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/run/PlanBuilder.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ps::cli {

struct PlanOptions {
  runtime::PlanSpec spec;
  std::string optimizerSync = "barrier";
  std::string db;
  std::string name;
  std::string preset;  // --preset NAME|FILE.json: its plan, then the flags given override it
  // The plan flags with how each copies its value into a spec: a preset's spec takes those given.
  std::vector<std::pair<CLI::Option*, std::function<void(runtime::PlanSpec&, const PlanOptions&)>>>
      plans;
};

// Adds --preset, --schedule/--schedule-file, --stages, --microbatches, --chunks, --layers,
// --boundaries, --costs, the uniform cost and link flags, --steps, --optimizer-sync, --db, --name.
void addPlanOptions(CLI::App& cmd, PlanOptions& options);

// The spec, finished from the parsed strings (e.g. --optimizer-sync): the flags', or the
// preset's with the flags given on the command line applied over it. Errors name the preset.
Result<runtime::PlanSpec> planSpec(PlanOptions& options);

// --costs, the uniform cost and link flags, --rank-speed and --rank-memory-gb (addPlanOptions
// adds them too; `explore` takes only these and its own sweep flags).
void addCostOptions(CLI::App& cmd, PlanOptions& options);

// A comma-list flag (--rank-speed 1,1,2,1; explore's --microbatches 8,16): each value given
// split by runtime::splitCommaList into `into`, so that an empty item ("1,,1,1") is a usage
// error naming the flag and the value instead of being dropped (CLI11's delimiter drops it). Int
// lists check each item against [lo, hi].
CLI::Option* addNumberListOption(CLI::App& cmd, const std::string& name, std::vector<double>& into,
                                 const std::string& help);
CLI::Option* addIntListOption(CLI::App& cmd, const std::string& name, std::vector<int>& into,
                              const std::string& help, int lo, int hi);
CLI::Option* addTextListOption(CLI::App& cmd, const std::string& name,
                               std::vector<std::string>& into, const std::string& help);

// planSpec, built.
Result<runtime::BuiltPlan> buildPlanFromOptions(PlanOptions& options);

}  // namespace ps::cli
