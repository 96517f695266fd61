#pragma once
// Helpers for the schedule tests: generate, validate and simulate under the uniform cost model,
// and measure a run the way DESIGN §4 defines it.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "trace/RunTrace.h"

namespace ps::test {

// Uniform costs in µs per layer (DESIGN §5 flags): F = fwd, B = bwd, W = wgrad (I = bwd - wgrad);
// 1 MiB of activations per layer and micro-batch, free links.
runtime::CostModel uniformCosts(int layers, double fwdUs = 1, double bwdUs = 2, double wgradUs = 1);

// Validates and simulates; fails the calling test (and returns an empty result) when either
// step fails.
runtime::SimResult validateAndSimulate(const runtime::Plan& plan, const runtime::CostModel& cost);

// Builds the spec (buildPlan) and simulates it; fails the calling test (and returns an empty
// result) when either step fails.
runtime::SimResult simulateSpec(const runtime::PlanSpec& spec);

// Builds the spec (buildPlan), simulates it, writes the run to a trace file and loads it back, as
// `report` and the app read it; fails the calling test (and returns an empty run) on an error.
trace::RunTrace simulateThroughTraceFile(const runtime::PlanSpec& spec);

// A built-in preset's plan (resources/presets); fails the calling test when there is none.
runtime::PlanSpec presetSpec(const std::string& name);

// A 1F1B run of a tiny transformer (hidden 8, two heads, sequence 4, micro-batch 2, FFN ×2) on
// `backend`, cheap enough for the model backends in a unit test.
runtime::RunPlanRequest tinyModelRun(runtime::Backend backend, int stages, int microbatches,
                                     int steps);

// One step's numbers (DESIGN §4): span over every rank's compute ops of the step; per rank the
// idle time (span − busy) and the mean bubble ratio.
struct StepMeasure {
  std::int64_t spanNs = 0;
  std::vector<std::int64_t> idleNs;  // per rank
  double bubble = 0;
  std::int64_t maxIdleNs() const;
};
StepMeasure measureStep(const runtime::Plan& plan, const runtime::SimResult& sim, int step = 0);

// DESIGN §4's steady-state bubble of a run of >= 3 steps: per rank 1 − busy/window over the
// window from its first compute op of step 1 to its first compute op of the last step.
double steadyStateBubble(const runtime::Plan& plan, const runtime::SimResult& sim);

// Peak in-flight activations per rank, in micro-batch·stage units: the simulator's peak
// activation bytes divided by one stage's activations for one micro-batch (stages must be
// uniform).
std::vector<double> peakActivationUnits(const runtime::Plan& plan, const runtime::CostModel& cost,
                                        const runtime::SimResult& sim);

// A plan as text: one line per rank, "r{rank}: " then comma-separated cells; a cell is
// actionLabel, followed by ".{step}" in multi-step plans, and an overlapped pair is written
// "(first;second)".
std::string formatPrograms(const runtime::Plan& plan);

// Compares `actual` with the golden file tests/runtime/golden/{name}; with
// PIPESCOPE_UPDATE_GOLDEN=1 in the environment it rewrites the file instead.
void expectGolden(const std::string& name, const std::string& actual);

}  // namespace ps::test
