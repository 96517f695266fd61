#include "runtime/synth/SynthOutput.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/plan/Lowering.h"
#include "runtime/plan/TorchCsv.h"
#include "runtime/run/Explore.h"
#include "runtime/run/RunPlan.h"
#include "trace/Units.h"

namespace ps::runtime::synth {
std::string synthCsvText(const BuiltPlan& built, bool withComms) {
  if (!withComms) return writeTorchCsvComputeOnly(built.plan);
  auto programs = lowerCommunication(built.plan, built.graph);
  for (auto& program : programs)  // torch has no spelling for OPT
    std::erase_if(program, [](const Action& a) { return a.kind == OpKind::OPT; });
  return writeTorchCsvComms(programs);
}

PlanSpec replaySpec(const SynthRequest& request, const SynthResult& result,
                    const std::string& csvPath) {
  PlanSpec spec = request.spec;
  spec.scheduleFile = csvPath;
  spec.boundaries = boundariesText(boundariesOf(result.built->plan));
  spec.layers = result.built->plan.numLayers;
  spec.splitBackward = false;  // the file says which ops there are
  return spec;
}

std::string gainSummary(const SynthResult& r) {
  const SynthBaseline* best = bestBaseline(r.baselines);
  if (!best) return "every generator is refused under these caps";
  const bool capped = std::any_of(r.capPerRank.begin(), r.capPerRank.end(), [](std::int64_t c) {
    return c != std::numeric_limits<std::int64_t>::max();
  });
  const std::string against = best->schedule + ", the fastest generator" +
                              (capped ? " under the caps (" : " (") +
                              trace::formatDuration(*best->stepNs) + ")";
  if (r.stepNs == *best->stepNs) return "the same step as " + against;
  const double gain = 1.0 - static_cast<double>(r.stepNs) / static_cast<double>(*best->stepNs);
  return trace::formatPercent(std::fabs(gain)) + (gain > 0 ? " shorter" : " longer") + " than " +
         against;
}

Result<std::vector<double>> capsOfSchedule(const SynthRequest& request,
                                           const std::string& schedule) {
  auto skeleton = buildPlan(skeletonSpec(request));
  if (!skeleton) return Error{"synth: " + skeleton.error()};
  PlanSpec spec = request.spec;
  spec.rankMemoryGb.clear();
  spec.schedule = schedule;
  spec.boundaries = boundariesText(boundariesOf(skeleton->plan));
  auto built = buildPlan(spec);
  if (!built) return Error{"--cap-of " + schedule + ": " + built.error()};
  auto sim = simulatePlan(*built, nullptr);
  if (!sim) return Error{"--cap-of " + schedule + ": " + sim.error()};
  const auto peak = *std::max_element(sim->peakMemory.begin(), sim->peakMemory.end());
  return std::vector<double>(static_cast<std::size_t>(built->plan.numRanks),
                             static_cast<double>(peak) / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace ps::runtime::synth
