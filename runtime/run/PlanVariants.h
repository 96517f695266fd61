#pragma once
// The plan features that reshape a generated schedule or add work to it (internal to
// runtime/run, used by PlanBuilder): TeraPipe's token slices, DynaPipe's grouped sequences,
// GraphPipe's stage DAG, PipeDream's weight versions, forward-only inference, Piper's and
// NestPipe's communication-lane work, DiffusionPipe's frozen-work flags. Errors name the flag.

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/schedules/Schedule.h"
#include "trace/Result.h"

namespace ps::runtime {

// --seq-lengths (DynaPipe): the micro-batches of the chosen grouping, each scaled to its cost.
// `sequences` gets the grouping.
Result<Plan> variableMicrobatchPlan(const PlanSpec& spec, ScheduleParams params,
                                    SequencePlan& sequences);
// --token-slices (TeraPipe): gpipe over sequences × slices, the slices chained.
// `sequences` gets the slices' lengths.
Result<Plan> slicedPlan(const PlanSpec& spec, ScheduleParams params, SequencePlan& sequences);
// --stage-graph (GraphPipe): the generated chain made a DAG.
Result<Plan> stageGraphPlan(const PlanSpec& spec, const ScheduleParams& params);
// --forward-only: the schedule's forwards in its order; nothing else runs.
[[nodiscard]] Status keepForwardsOnly(const PlanSpec& spec, Plan& plan);
// --weight-versions: PipeDream's stash, or none (latest), or XPipe's prediction.
[[nodiscard]] Status applyWeightVersions(const PlanSpec& spec, Plan& plan);
// --a2a-mb (Piper) and --fetch-mb (NestPipe): collectives on the ranks' communication lanes.
[[nodiscard]] Status addCommLaneWork(const PlanSpec& spec, Plan& plan, const CostModel& cost);
// --frozen-us and --fill (DiffusionPipe).
[[nodiscard]] Status checkFrozenFlags(const PlanSpec& spec);

}  // namespace ps::runtime
