#pragma once
// The plan explorer (BaPipe; DAPPLE's planner): sweeps schedule × micro-batches × chunks ×
// partition (× data-parallel replicas × device mapping) over one model and cluster, simulates each
// candidate and ranks them. A candidate that does not build (a schedule's constraint, a memory cap
// no cut fits) or whose simulated peak passes a rank's capacity is counted as refused, with the
// reason, not ranked.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"

namespace ps::runtime {

struct ExploreSpec {
  PlanSpec base;                       // costs, links, ranks (stages), layers; steps = 1
  std::vector<std::string> schedules;  // empty: every synchronous generator
  std::vector<int> microbatches;       // empty: 2p and 4p
  std::vector<int> chunks;             // V for the schedules that take it; empty: 1, 2
  // DAPPLE: data-parallel replicas D of a pipeline of P / D ranks (P = base.stages, the
  // devices); D not dividing P or m is skipped. Empty: 1.
  std::vector<int> dataParallel;
  // Luo et al.: --mapping values to try ("rank", "auto", a device list). Empty: the base's.
  std::vector<std::string> mappings;
};

struct ExploreCandidate {
  std::string schedule;
  int microbatches = 0;
  int chunks = 1;
  int dataParallel = 1;
  std::string mapping;  // the device order used ("0,4,1,5,..."); empty = rank order
  // "balanced" (the partitioner's, memory-aware), "memory" (its DawnPiper objective: the least
  // largest stage memory at the balanced cut's speed) or "even"
  std::string partition;
  std::vector<int> boundaries;
  std::int64_t stepTimeNs = 0;
  double throughputPerS = 0;  // micro-batches per second of the step
  double bubbleRatio = 0;     // mean over ranks of idle / step
  std::int64_t peakMemoryBytes = 0;
  std::vector<std::int64_t> peakMemoryPerRank;
};

struct ExploreResult {
  std::vector<ExploreCandidate> ranked;  // fastest per micro-batch first; ties: less memory
  struct Refused {
    std::string what, why;
  };
  std::vector<Refused> refused;
  int layers = 0;  // the model's, the same for every candidate
};

// What a sweep may simulate, summed over its candidates before any is built: each candidate's
// actions (PlanSize.h's estimate) × its 3 partitions × the simulations of its mapping search
// (up to kMaxAssignments + kMaxSwapEvaluations under --mapping auto). ~2·10^8 actions is a few
// minutes of simulation; past it a sweep is refused with its size and how to narrow it.
inline constexpr double kMaxExploreActions = 2e8;

// Called after each candidate with how many are done of how many (the command-line's progress).
using ExploreProgress = std::function<void(int done, int total)>;

// Candidates are compared per micro-batch (throughput), so that plans with different m rank
// fairly; the model (its layer count) is fixed: --layers, the cost file's, or P × the largest V.
// `cancel` is polled between candidates and inside each build (a mapping search) and simulation:
// the error is then "explore cancelled". A sweep estimated past kMaxExploreActions is refused.
[[nodiscard]] Result<ExploreResult> explorePlans(const ExploreSpec& spec,
                                                 const std::atomic<bool>* cancel = nullptr,
                                                 const ExploreProgress& progress = {});

// The first layer of stages 1..S-1 (replica 0's): the plan's cut as --boundaries gives it.
std::vector<int> boundariesOf(const Plan& plan);
// "3,6,9": boundaries as --boundaries takes them.
std::string boundariesText(const std::vector<int>& boundaries);

// The candidate as the PlanSpec that builds it (for `sim`, the app's Explore panel).
PlanSpec candidateSpec(const ExploreSpec& spec, const ExploreCandidate& c, int layers);

}  // namespace ps::runtime
