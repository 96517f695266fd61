#pragma once
// Eager gradient synchronisation of replicated plans (Chimera's and BitPipe's, --eager-sync;
// internal to runtime/sim): each stage's gradients are exchanged with its twins' as soon as every
// holder of the stage has finished its backward ops of the step, on the rank's link beside its
// compute (one exchange at a time, in the order they became ready), instead of all at once after
// the step's last backward. A rank's optimizer step waits for its last exchange.
//
// HetPipe's wave-synchronous replicas (Plan::waveStaleness D) exchange the same way, each stage's
// update once both holders are done with its backward, but a rank's optimizer step of step k
// waits only for the exchanges of step k − D: with D ≥ 1 they run beside the next steps' compute.
//
// The engines hand every placed op to OpCosts::placed, which tells this class when a stage's last
// backward op ends and asks it how long an OPT waits; at the end of a run finish() writes each
// exchange as an AR record (the collective lane, beside compute) and starts each OPT record
// where its update begins.

#include <cstdint>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "runtime/sim/GradientExchange.h"

namespace ps::runtime {
struct SimResult;
}

namespace ps::runtime::sim {

class EagerSync {
 public:
  EagerSync(const Plan& plan, const CostModel& cost);

  // A backward op that finishes a micro-batch's gradient (W, or B) of (replica, stage) ended.
  void onBackwardEnd(const Action& a, std::int64_t end);
  // How long `rank`'s OPT of `step` placed at `start` lasts: the wait for its exchanges (of step
  // − lag), then the update of `updateNs`. Logs the exchanges for finish().
  std::int64_t optDuration(int rank, int step, std::int64_t start, std::int64_t updateNs);
  // Appends the AR records (with a lag, also the last steps' exchanges no step waited for) and
  // moves each OPT record's start to its update's.
  void finish(SimResult& out);

 private:
  struct Exchange {
    GradientExchange what;
    std::int64_t ns = 0;
  };
  struct Logged {
    std::int64_t start = 0, end = 0, bytes = 0;
    int rank = 0, stage = 0, step = 0, twin = 0;
  };
  std::size_t slot(int step, int replica, int stage) const;
  // Places `rank`'s exchanges of `step` on its link lane; returns when the last one ends.
  std::int64_t exchange(int rank, int step);

  const Plan& plan_;
  std::vector<std::vector<Exchange>> exchanges_;  // [rank]
  std::vector<std::int64_t> lastBackwardEnd_;     // [(step · replicas + replica) · S + stage]
  std::vector<Logged> log_;
  std::vector<std::int64_t> updateNs_;  // [rank · steps + step]: the OPT's own part
  int lag_ = 0;                         // wave staleness D; 0 for eager sync
  std::vector<std::int64_t> laneFree_;  // [rank]: its exchanges' link is free from then on
};

}  // namespace ps::runtime::sim
