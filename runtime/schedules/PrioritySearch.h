#pragma once
// A deterministic local search over the unit-time list scheduler's priorities (internal to
// runtime/schedules). A greedy rule (backward first, oldest micro-batch first, ...) fixes the
// steady state of a pipeline well but leaves idle slots in its fill and drain, where which op
// goes first decides whether a chain of dependencies is started in time. The search gives every
// op (stage, micro-batch, kind) a key, starts from the greedy rule's order (key = its priority)
// and hill-climbs: it moves a few random ops' keys, schedules again, and keeps the change when
// the makespan does not grow (equal moves let it cross plateaus). The policy's hold-backs
// (memory bounds) still apply, so every candidate keeps the greedy rule's memory bound.
//
// Bounded work: the number of list-schedule passes is capped so that passes × ops stays under
// `opBudget`; a plan too large for one pass of the budget gets the greedy order as it is.

#include <cstdint>

#include "runtime/schedules/ListScheduler.h"

namespace ps::runtime::sched {

struct PrioritySearchOptions {
  int maxPasses = 400;                         // list-schedule passes at most
  std::int64_t opBudget = 400'000;             // passes × ops scheduled, at most
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;  // fixed: the same plan gives the same order
};

// `basePriority` must return a priority for every op it does not hold back (as for
// listSchedule); its values order the first pass. Returns the best schedule found (never worse
// than the greedy rule's).
Result<ListScheduleResult> searchListSchedule(const Plan& skeleton, const UnitCosts& cost,
                                              const ListPriority& basePriority,
                                              const PrioritySearchOptions& options = {});

}  // namespace ps::runtime::sched
