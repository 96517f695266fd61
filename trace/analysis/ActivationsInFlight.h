#pragma once
// Per rank, how many forwards' activations it holds over time: +1 when a forward starts, -1 when
// the backward that frees it (B, or I when the backward is split) ends — the count a student
// watches fill in the warm-up (GPipe: m on rank 0; 1F1B: p) and drain. A step function per rank,
// built once per run in O(ops log ops); the Teach dock draws it on each lane and reads its peak.

#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::trace {

struct InFlightStep {
  std::int64_t t = 0;
  int count = 0;   // from t on
  int seenAt = 0;  // what an op starting at t sees: the backwards ending at t, not the forwards
};

struct ActivationsInFlight {
  std::vector<std::vector<InFlightStep>> ranks;  // per rank slot, by time; empty: no forwards
  std::vector<int> peak;                         // per rank slot
  // The count on `rank` at time t (after every change at t).
  int at(int rank, std::int64_t t) const;
  // The count an op starting at t sees (the Teach table's): forwards begun before t, backwards
  // ended by t.
  int seenAt(int rank, std::int64_t t) const;
};

ActivationsInFlight activationsInFlight(const RunTrace& run);

}  // namespace ps::trace
