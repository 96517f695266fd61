#pragma once
// One pass of the synthesiser: a list scheduler in simulated time over a SynthProblem. Whenever a
// rank is free it starts, of its ops whose inputs have arrived and whose activations fit under
// its cap, the one with the lowest key; it stays idle when none can start. Transfers take their
// link's time and queue on a busy link first come, first served, and memory is freed at an op's
// end before anything starting at that instant allocates: the simulator's rules, so that the
// order found, replayed by the simulator, takes (about) the time found here.
//
// A pass is O(ops · candidates per rank) with no allocation once its Workspace has grown, so the
// search can afford thousands.

#include <cstdint>
#include <queue>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/synth/SynthProblem.h"

namespace ps::runtime::synth {

struct ListPass {
  std::vector<std::vector<std::int32_t>> order;  // [rank] op ids in start order
  std::vector<std::int64_t> start;               // [op]
  std::vector<std::int64_t> peakBytes;           // [rank]
  std::int64_t makespan = 0;
  std::int64_t endSum = 0;  // every rank's last end, summed: how compact the schedule is
  bool complete = false;    // false: every rank stalled with ops left (the caps allow no order)
};

// Buffers one pass reuses.
struct ListWorkspace {
  std::vector<std::int32_t> waiting;                  // [op] dependencies not finished
  std::vector<std::int64_t> readyAt;                  // [op] when its last input arrives
  std::vector<std::int64_t> channelFree;              // [channel]
  std::vector<std::vector<std::int32_t>> candidates;  // [rank] ops whose inputs are all done
  std::vector<std::int64_t> busyUntil, memory;        // [rank]
  std::vector<std::size_t> head;                      // [rank] replay: next position
  using Completion = std::pair<std::int64_t, std::int32_t>;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> running;
};

// `key[op]`: lower starts first among the ready ops of a rank (ties: the lower op id).
void listSchedule(const SynthProblem& problem, std::span<const std::int64_t> key,
                  ListWorkspace& work, ListPass& out);

// The simulator's replay of a fixed order instead: each rank runs `order[rank]` (op ids, every
// op of the rank once) in that order, an op starting once its inputs have arrived and the one
// before it ended. Incomplete when the order deadlocks or a rank passes its cap.
void replayOrder(const SynthProblem& problem, const std::vector<std::vector<std::int32_t>>& order,
                 ListWorkspace& work, ListPass& out);

}  // namespace ps::runtime::synth
