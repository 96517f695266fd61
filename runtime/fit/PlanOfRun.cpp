#include "runtime/fit/PlanOfRun.h"

#include <cmath>
#include <memory>
#include <sstream>

#include "runtime/fit/PlanFit.h"
#include "runtime/run/Backends.h"
#include "runtime/run/RunConfig.h"
#include "runtime/run/Sensitivity.h"

namespace ps::runtime::fit {
namespace {

// A run's source is its backend's name when one of ours recorded it (else "torch-csv", ...).
bool recordedByPipeScope(const trace::RunTrace& run) {
  return findBackend(run.info.source) != nullptr;
}

bool reallyRan(const trace::RunTrace& run) {
  const BackendInfo* backend = findBackend(run.info.source);
  return backend && backend->trainsModel;
}

std::string errorText(double ratio) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(2);
  out << (ratio >= 0 ? "+" : "") << ratio * 100 << " %";
  return out.str();
}

}  // namespace

Result<RunPlan> planOfRun(const trace::RunTrace& run, const std::atomic<bool>* cancel) {
  const std::string what = "run " + std::to_string(run.info.id);
  RunPlan out;
  // Its own config first: sim, cpu and cuda runs, and a torch-csv import whose schedule file
  // is still there; an imported profile (or a torch-csv whose file is gone) is fitted.
  auto request = requestFromConfigJson(run.info.config_json);
  if (!request && recordedByPipeScope(run)) return Error{what + ": " + request.error()};
  if (request) {
    auto built = buildPlan(request->spec, cancel);
    if (!built && recordedByPipeScope(run)) return Error{what + ": " + built.error()};
    if (built) {
      // A run that really ran: its measured times, not the flags' (the simulator's are its own).
      if (reallyRan(run)) useMeasuredCosts(*built, run);
      out.spec = request->spec;
      // A rebuild from the spec alone must simulate what the table does: the costs go with it.
      out.spec.costs = std::make_shared<const CostModel>(built->cost);
      out.built = std::move(*built);
      return out;
    }
  }
  auto fit = fitPlan(run, {}, cancel);
  if (!fit) return Error{what + " (imported from " + run.info.source + "): " + fit.error()};
  auto built = buildPlan(fit->spec, cancel);
  if (!built) return Error{what + ": the fitted plan does not build: " + built.error()};
  out.spec = fit->spec;
  out.built = std::move(*built);
  out.fitted = true;
  out.notes.push_back(what + " was imported from " + run.info.source + ": plan fitted (" +
                      (fit->match.name.empty() ? std::string("recorded order") : fit->match.name) +
                      ", replay " + errorText(fit->quality.stepError()) + " of its step time)");
  return out;
}

}  // namespace ps::runtime::fit
