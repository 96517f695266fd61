#pragma once
// The PLAN flags of DESIGN §5, shared by `sim` and `run`.

#include <memory>
#include <string>

#include "runtime/run/PlanBuilder.h"

namespace CLI {
class App;
}

namespace ps::cli {

struct PlanOptions {
  runtime::PlanSpec spec;
  std::string optimizerSync = "barrier";
  std::string db;
  std::string name;
};

// Adds --schedule/--schedule-file, --stages, --microbatches, --chunks, --layers, --boundaries,
// --costs, the uniform cost and link flags, --steps, --optimizer-sync, --db and --name.
void addPlanOptions(CLI::App& cmd, PlanOptions& options);

// The spec, finished from the parsed strings (e.g. --optimizer-sync).
runtime::PlanSpec planSpec(PlanOptions& options);

// planSpec, built.
Result<runtime::BuiltPlan> buildPlanFromOptions(PlanOptions& options);

}  // namespace ps::cli
