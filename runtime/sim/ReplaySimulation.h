#pragma once
// The simulation engine for plans whose links are all free (latency, no bandwidth limit), which
// is what the uniform cost flags give (internal to runtime/sim; Simulator.h is the interface).
//
// With free links no transfer ever waits for another, so an op's start time is a function of
// its dependencies' end times alone: the unit at a rank's head starts at the later of the time
// the rank's previous unit ended and its dependencies' arrivals (end, plus the link latency for a
// cross-rank data edge). The engine therefore needs no events: it replays every rank's program
// in order, as the validator does, and a rank whose head waits for an op not yet placed parks on
// that op (intrusive lists, a head per op and a next per rank) and is woken when it is placed.
// Every op is placed once and each dependency read once; no successor lists, no event queue, no
// per-op allocation. It gives exactly EventSimulation's results (SimEngineTest checks it on every
// schedule); EventSimulation remains for links of finite bandwidth, whose FIFO queues need time
// order.

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "runtime/sim/MemoryTracker.h"
#include "runtime/sim/OpCosts.h"
#include "runtime/sim/Simulator.h"
#include "trace/Result.h"

namespace ps::runtime::sim {

class ReplaySimulation {
 public:
  // The cost model's links must all be free (OpCosts::freeLinks).
  ReplaySimulation(const Plan& p, const OpGraph& g, const CostModel& c,
                   const std::atomic<bool>* cancel = nullptr);
  Result<SimResult> run();

 private:
  // When `dep`'s output is there (its end; a barrier's: its last dependency's end), or -1 when
  // it has not been placed yet (blocker_ then names the op to wait for).
  std::int64_t readyTime(std::int32_t dep);
  // Whether the edge dep → node (on `rank`) carries data between ranks (a transfer).
  bool isTransfer(std::int32_t dep, int rank, std::int32_t node) const;
  void advance(int r, std::vector<int>& work);
  void addTransfer(std::int32_t producer, std::int32_t node, int r);

  static constexpr int kMaxIncoming = 8;  // transfers into one unit noted on the way

  const Plan& p_;
  const std::atomic<bool>* cancel_;
  const OpGraph& g_;
  OpCosts costs_;
  MemoryTracker mem_;
  SimResult out_;
  // Per compute op its end time once placed: what dependents read, 8 bytes an op instead of a
  // 48-byte record (these reads jump between the ranks' ranges; denser is fewer cache misses).
  // Until placed it is negative and holds the list of ranks parked on the op: -1 for none,
  // -(r + 2) for first rank r (the next ones follow nextWaiter_).
  std::vector<std::int64_t> end_;
  std::vector<std::int32_t> recordOf_;  // per compute op: its index in the records (placed ops)
  std::vector<std::size_t> head_;
  std::vector<std::int64_t> streamFree_;
  std::vector<std::int32_t> nextWaiter_;  // per rank: the next rank parked on the same op
  // Barrier (virtual) nodes, resolved incrementally: deps scanned so far and their latest end.
  std::vector<std::int32_t> virtualScan_;
  std::vector<std::int64_t> virtualLatest_, virtualEnd_;
  std::int32_t blocker_ = -1;
  std::uint64_t units_ = 0;  // units placed, for polling cancel_
  bool cancelled_ = false;
  std::string overflow_;  // set when a time would pass kMaxSimTimeNs: the run's error
  // Plans where an op may send to several ops on one rank (stage DAGs, token slices, extra
  // edges) share one transfer per (producer, rank), as EventSimulation does: its index and the
  // consumer it names (the lowest node id).
  bool shareTransfers_ = false;
  std::unordered_map<std::uint64_t, std::pair<std::size_t, std::int32_t>> shared_;
};

}  // namespace ps::runtime::sim
