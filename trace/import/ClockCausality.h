#pragma once
// The p2p clock fit for host-side transfers (issue 31 §1). NCCL's send and receive kernels end
// together, when the data has landed; a host-side send is often only a post (gloo's isend ends
// in microseconds) while its receive blocks until the data is there, so fitting "ends together"
// put 17-23 receives before their sends. What does hold for any transfer is causality: a
// receive cannot end before its send starts. With o_r the offset that puts rank r on rank 0's
// clock, each matched pair (send on a, receive on b) says
//     recv.end + o_b >= send.start + o_a,   i.e.   o_a - o_b <= recv.end - send.start,
// a system of difference constraints. Traffic both ways between two ranks (activations one way,
// gradients back) bounds their offset from both sides; the shortest paths of the constraint
// graph from rank 0 give, per rank, the interval [low, high] of offsets that keep every pair
// causal. The fit takes the middle of it (the per-rank lows and highs are each a feasible
// solution, so their middle is one too) and reports what it could not narrow.

#include <cstdint>
#include <limits>
#include <vector>

#include "trace/import/ClockAlignment.h"
#include "trace/import/OpBuilder.h"

namespace ps::trace::import {

inline constexpr std::int64_t kUnboundedBelow = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kUnboundedAbove = std::numeric_limits<std::int64_t>::max();

struct CausalFit {
  enum class Outcome {
    Fitted,      // offsetNs meets every constraint
    Infeasible,  // no offsets do: a cycle of constraints contradicts itself (mismatched pairs)
    TooLarge,    // the constraint graph took too long to solve: not fitted
  } outcome = Outcome::Fitted;
  std::vector<std::int64_t> offsetNs;  // per rank; rank 0 is 0
  // Per rank, the offsets causality allows (kUnboundedBelow / kUnboundedAbove where no pair
  // bounds that side: traffic one way only, or a rank with no pairs).
  std::vector<std::int64_t> lowNs, highNs;
};

// `estimateNs`: per rank, an offset to use where causality bounds it on one side only or not at
// all (the "ends together" fit, or the wall clock); it is moved into what causality allows.
CausalFit fitByCausality(const std::vector<RankOps>& ranks, const std::vector<P2pPair>& pairs,
                         const std::vector<std::int64_t>& estimateNs);

// Whether the pairs are host-side transfers, for which causality is the fit: no pair has both
// ends device-timed (NCCL kernels, GPU projections) per RankOps::hostTimed.
bool hostSideTransfers(const std::vector<RankOps>& ranks, const std::vector<P2pPair>& pairs);

}  // namespace ps::trace::import
