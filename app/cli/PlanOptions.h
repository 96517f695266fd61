#pragma once
// The PLAN flags of DESIGN §5, shared by `sim` and `run`.

#include <memory>
#include <string>

#include "runtime/plan/PlanBuilder.h"

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

// Finishes the spec from the parsed strings (e.g. --optimizer-sync) and builds the plan.
Result<runtime::BuiltPlan> buildPlanFromOptions(PlanOptions& options);

}  // namespace ps::cli
