#pragma once
// The schedule generators and their registry. A generator turns (ranks, micro-batches, chunks)
// into a Plan whose programs cover one step (synchronous schedules; steps are repeated by
// `repeatSteps`) or `steps` steps (asynchronous schedules, whose steps overlap by design).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "runtime/schedules/ClosedForms.h"
#include "trace/Result.h"

namespace ps::runtime {

struct ScheduleParams {
  int ranks = 4;         // P
  int microbatches = 8;  // M per step
  int chunks = 1;        // V (virtual stages per rank); schedules with a fixed V ignore it
  int steps = 1;         // asynchronous generators emit this many steps
};

struct ScheduleInfo {
  std::string name;         // canonical, e.g. "1f1b"
  std::string family;       // grouping for the app: "classic", "interleaved", "zero-bubble", ...
  std::string summary;      // one line for `pipescope-cli schedules`
  std::string constraints;  // human-readable, e.g. "m >= p, p even"
  bool asynchronous = false;
  std::function<Result<Plan>(const ScheduleParams&)> generate;
  // The paper's bubble ratio at (p, m, v) under its uniform assumptions (ClosedForms.h); empty
  // for a schedule without one.
  std::function<std::optional<AnalyticBubble>(int p, int m, int v)> closedForm;
};

// Every generator, in the order `pipescope-cli schedules` lists them.
const std::vector<ScheduleInfo>& scheduleRegistry();
const ScheduleInfo* findSchedule(const std::string& name);

// Looks the name up and generates; an unknown name lists the valid ones. Layers are assigned
// one per virtual stage (see assignLayers to place more layers).
Result<Plan> generateSchedule(const std::string& name, const ScheduleParams& params);

// Common checks every generator runs first: positive sizes; errors name the parameter.
Status checkBasicParams(const std::string& name, const ScheduleParams& p);

// Builds the placement/micro-batch skeleton every generator starts from: `stages` virtual stages
// placed by `rankOfStage`, one layer each, M micro-batches on replica 0, empty programs.
Plan planSkeleton(const std::string& name, int ranks, int stages, int microbatches,
                  const std::function<int(int stage)>& rankOfStage);

}  // namespace ps::runtime
