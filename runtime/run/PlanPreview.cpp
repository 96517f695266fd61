// previewPlan, previewOf and simulatePlan (declared in RunPlan.h): the sim backend's run of a
// request held in memory, for a caller that shows it before it is saved (savePreview, in
// RunPlan.cpp next to runPlan's own write, writes it).

#include "runtime/run/RunPlan.h"
#include "runtime/sim/SimRows.h"

namespace ps::runtime {

Result<SimResult> simulatePlan(const BuiltPlan& built, const std::atomic<bool>* cancel,
                               bool* overCap) {
  if (overCap) *overCap = false;
  auto sim = simulate(built.plan, built.graph, built.cost, cancel);
  if (!sim) return sim;
  if (auto fits = checkMemoryCaps(built.cost, sim->peakMemory); !fits) {
    if (overCap) *overCap = true;
    return Error{fits.error()};
  }
  return sim;
}

PlanPreview previewOf(const RunPlanRequest& request, SimResult sim, std::int64_t previewId) {
  PlanPreview preview;
  preview.built = request.built;
  RunPlanResult named;  // what runPlan knows of the run when it writes its header
  named.built = request.built;
  named.name = request.name.empty() ? planRunName(request.built->plan) : request.name;
  preview.header = simRunHeader(request, named);
  preview.header.info.id = previewId;
  preview.trace = std::make_shared<trace::RunTrace>(
      simRunTrace(preview.header, sim, request.built->plan.steps));
  preview.sim = std::make_shared<const SimResult>(std::move(sim));
  return preview;
}

Result<PlanPreview> previewPlan(const RunPlanRequest& request, const RunControl& control,
                                std::int64_t previewId) {
  RunPlanRequest simulated = request;
  simulated.backend = Backend::Sim;
  simulated.write = false;
  auto ran = runPlan(simulated, {}, control);
  if (!ran) return std::move(ran).takeError();
  if (ran->status != trace::RunStatus::Complete) return Error{ran->message};
  simulated.built = ran->built;
  return previewOf(simulated, std::move(*ran->sim), previewId);
}

}  // namespace ps::runtime
