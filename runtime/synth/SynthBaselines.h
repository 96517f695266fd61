#pragma once
// The fixed schedules a synthesised one is measured against: the generators that take the same
// plan (GPipe, 1F1B, ZB-H1, ZB-H2 at V = 1; interleaved 1F1B and ZB-V beyond), each built at the
// skeleton's cut and simulated under the same caps. One over a cap is refused with the simulator's
// reason, as `sim` would refuse it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "runtime/synth/SynthProblem.h"

namespace ps::runtime::synth {

struct SynthBaseline {
  std::string schedule;
  std::optional<std::int64_t> stepNs;  // absent: refused (`refused` says why)
  std::vector<std::int64_t> peakPerRank;
  std::string refused;
  std::shared_ptr<const BuiltPlan> built;  // the generated plan when it was built
  std::shared_ptr<const SimResult> sim;    // its simulation when it fits the caps
};

// The generators compared at the problem's shape (V = 1 or V > 1).
std::vector<std::string> baselineSchedules(int chunks);

// Each generator of baselineSchedules, built like the skeleton (same cut, links, costs) with the
// request's caps and simulated; `cancel` is polled by each simulation.
std::vector<SynthBaseline> simulateBaselines(const SynthRequest& request,
                                             const SynthProblem& problem,
                                             const std::atomic<bool>* cancel = nullptr);

// The fastest baseline that fits its caps, or null.
const SynthBaseline* bestBaseline(const std::vector<SynthBaseline>& baselines);

// Keys that make the list scheduler follow a simulated schedule: each op's start in it (an
// unsplit B gives its start to I and its end to W; a split I gives its start to B).
std::vector<std::int64_t> keysFromSchedule(const SynthProblem& problem, const SimResult& sim);

}  // namespace ps::runtime::synth
