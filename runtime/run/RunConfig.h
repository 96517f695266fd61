#pragma once
// The inverse of what runPlan writes into run.config_json (DESIGN §4: config_json holds every
// knob needed to rerun). The app restores a selected run's knobs from it, so that Run reruns the
// plan on screen, not whatever the panel last held.

#include <string_view>

#include "runtime/run/RunPlan.h"
#include "trace/Result.h"

namespace ps::runtime {

// Every knob of a run's config_json as a plan request: the plan (schedule or schedule file,
// shape, layers and boundaries, steps, optimizer sync, recompute), its costs (the uniform flags;
// with a cost file, or a prediction's calibrated costs, the cost model embedded in the config, so
// that the rerun needs no file), links, and for cpu/cuda runs the backend, model, optimizer,
// dtype, SM split, event timing and emulated link (configs written before the emulated link was
// recorded: the plan's link, as the CLI sets it). buildPlan(request.spec)->configJson (for
// cpu/cuda: modelRunConfigJson of it, without the "cuda" note of what a run used) gives the same
// text back. name, source and configJson stay empty (runPlan's defaults). A torch-csv import
// gives a sim request on its schedule file, which must still exist when the plan is built.
// Errors say why: a run imported from nsys or kineto ("run was imported from nsys: it has no plan
// to rerun"), text that is not JSON or not an object, no "schedule", a knob of the wrong type
// (named, with the value expected).
[[nodiscard]] Result<RunPlanRequest> requestFromConfigJson(std::string_view configJson);

}  // namespace ps::runtime
