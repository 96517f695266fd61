#pragma once
// Each send matched to the receive it feeds, across ranks, for the timeline's flow arrows. A
// send on rank r to peer q pairs with a receive on q from r of the same direction (SEND_F with
// RECV_F, SEND_B with RECV_B), micro-batch and step; several such pairs (interleaved chunks going
// round the ring) pair in time order. Stage is not part of the key: a send carries the producing
// stage and its receive the consuming one.

#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::ui {

struct Flow {
  int fromRank = 0;
  std::size_t send = 0;  // index in fromRank's Send lane
  int toRank = 0;
  std::size_t recv = 0;             // index in toRank's Recv lane
  std::int64_t start = 0, end = 0;  // the send's start, the receive's end
};

// All matched pairs, sorted by start; unmatched sends and receives are left out.
std::vector<Flow> matchFlows(const trace::RunTrace& run);

}  // namespace ps::ui
