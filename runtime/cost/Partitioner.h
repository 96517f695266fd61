#pragma once
// The partitioner (DESIGN §2): cuts a model's layers into contiguous stages so that the slowest
// stage is as fast as possible — exact dynamic programming over (stage, first layer) — on
// heterogeneous devices (a stage's time is its layers' F + I + W divided by its rank's speed),
// optionally under each rank's memory capacity. `--boundaries` bypasses it (parseBoundaries).

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// What the cut minimises. Time: the slowest stage. Memory (DawnPiper): the largest stage's
// memory, among the cuts whose slowest stage is within timeSlack of the fastest possible one
// (0 = only cuts as fast as the time-balanced one: what it moves is free).
enum class PartitionObjective { Time, Memory };

struct PartitionRequest {
  int numStages = 0;
  // stage → rank holding it (the schedule's placement); empty = stage s on rank s.
  std::vector<int> stageRank;
  // Micro-batches whose activations a stage holds at its peak (1F1B: p − rank, GPipe: M);
  // empty = 1 per stage.
  std::vector<int> inFlight;
  // Enforce the cost model's per-rank memoryCapacityBytes (ranks without one are unbounded).
  // Memory of a stage = its parameters × stateBytesPerParamByte + its activations × in-flight.
  // Exact when every rank holds one stage. A rank holding several stages (interleaved, V-shape)
  // gives each an equal share of its capacity: any partition returned fits, but one that needs
  // uneven shares is not found.
  bool enforceMemory = true;
  PartitionObjective objective = PartitionObjective::Time;
  double timeSlack = 0;  // Memory: the slowest stage may take (1 + timeSlack) × the fastest's
};

struct Partition {
  std::vector<int> boundaries;           // first layer of stages 1..S−1 (S−1 entries)
  std::vector<double> stageNs;           // per stage: (F + I + W) / speed
  std::vector<std::int64_t> stageBytes;  // per stage: memory as above
  double maxStageNs = 0;
};

// Bounds on what partitionLayers takes on (it answers with an error beyond them): its table has
// S·(L−S+1) cells of 4 bytes; ranks of different speeds or memory budgets need the quadratic scan.
inline constexpr std::int64_t kMaxPartitionCells = std::int64_t{1} << 25;
inline constexpr int kMaxHeterogeneousLayers = 8192;

// Errors: sizes that do not fit (more stages than layers, a rank out of range), or no partition
// within memory — naming the rank, what its stage needs at least and the shortfall.
[[nodiscard]] Result<Partition> partitionLayers(const CostModel& model,
                                                const PartitionRequest& request);

// Parses `--boundaries i,j,k`: the first layer of stages 1..S−1, strictly increasing, within
// 1..L−1. Errors name the flag and the value.
[[nodiscard]] Result<std::vector<int>> parseBoundaries(const std::string& text, int numLayers,
                                                       int numStages);

// Layers split as evenly as possible (earlier stages take the remainder), as boundaries.
[[nodiscard]] std::vector<int> evenBoundaries(int numLayers, int numStages);

// Sets every replica's stage layer ranges from `boundaries` and plan.numLayers = numLayers.
[[nodiscard]] Status assignLayers(Plan& plan, const std::vector<int>& boundaries, int numLayers);

}  // namespace ps::runtime
