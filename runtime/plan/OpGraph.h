#pragma once
// The dependency DAG of a plan (DESIGN §2), flattened for the validator, the simulator and the
// executors: every compute action gets a dense id; dependencies are CSR arrays of ids.
//
// Rules: F(s,m) after F(pred(s),m) [and F(s, previous slice)]; R(s,m) after F(s,m);
// B/I(s,m) after B/I(succ(s),m) (the last stage: after F(s,m)), after F(s,m) and R(s,m);
// W(s,m) after I(s,m); OPT(rank, step) after every W/B of that step — on its own rank
// (OptimizerSync::None) or on every rank through one barrier node (OptimizerSync::Barrier);
// plus the plan's extra edges. Program order on each rank is implicit (in-order streams).
//
// Layout: node ids follow the programs, rank 0's first, so a rank's nodes are one contiguous id
// range in program order (no per-rank lists); the virtual barrier nodes come last. Everything is
// flat arrays sized once: building a graph of millions of ops makes no per-op allocation.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct OpGraph {
  // Nodes: every action of every program (program order), then virtual barrier nodes.
  std::vector<Action> actions;
  std::vector<std::int32_t> rank;       // -1 for virtual nodes
  std::vector<std::int32_t> rankBegin;  // [numRanks + 1]: rank r's nodes are ids
                                        // rankBegin[r] .. rankBegin[r+1]-1, in program order
  std::vector<std::int32_t> depBegin;   // CSR: deps of node i are deps[depBegin[i]..depBegin[i+1])
  std::vector<std::int32_t> deps;
  std::size_t computeCount = 0;  // nodes that are real actions (the rest are virtual)

  std::size_t size() const { return actions.size(); }
  int numRanks() const { return rankBegin.empty() ? 0 : static_cast<int>(rankBegin.size()) - 1; }
  bool isVirtual(std::size_t i) const { return rank[i] < 0; }
  std::span<const std::int32_t> depsOf(std::size_t i) const {
    return {deps.data() + depBegin[i], deps.data() + depBegin[i + 1]};
  }
  // Rank r's program length and its i-th node.
  std::size_t rankSize(int r) const {
    return static_cast<std::size_t>(rankBegin[r + 1] - rankBegin[r]);
  }
  std::int32_t rankNode(int r, std::size_t i) const {
    return rankBegin[r] + static_cast<std::int32_t>(i);
  }
  // A compute node's index within its rank's program.
  std::int32_t programPos(std::size_t i) const {
    return static_cast<std::int32_t>(i) - rankBegin[rank[i]];
  }
};

// Builds the graph. Errors (naming ranks and ops): unknown stage, rank or micro-batch; an action
// on a rank that does not hold its stage; a duplicate; a missing required op (F, and B or I+W,
// and R under recompute, for every stage and micro-batch of every step).
Result<OpGraph> buildOpGraph(const Plan& plan);

}  // namespace ps::runtime
