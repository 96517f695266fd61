#pragma once
// The discrete-event engine behind simulate() (internal to runtime/sim; Simulator.h is the
// interface). Each rank's stream runs its program in order; an op starts when its dependencies
// have arrived and its stream is free; a cross-rank data edge is a transfer on its link.
//
// This engine handles links of finite bandwidth, whose transfers queue first come, first served
// and so must be processed in time order. Plans whose links are all free (latency only) take the
// cheaper ReplaySimulation; the two give identical results there (SimEngineTest).
//
// Built for plans of millions of ops: the per-node state the hot loop touches for a successor
// (ready time, pending count, rank, data-flow class) is packed into 16 bytes; successors are CSR;
// nothing is allocated per op.

#include <atomic>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/ActivationMoves.h"
#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "runtime/sim/MemoryTracker.h"
#include "runtime/sim/OpCosts.h"
#include "runtime/sim/Simulator.h"
#include "trace/Result.h"

namespace ps::runtime::sim {

class EventSimulation {
 public:
  EventSimulation(const Plan& p, const OpGraph& g, const CostModel& c,
                  const std::atomic<bool>* cancel = nullptr);
  Result<SimResult> run();

 private:
  // Which data a node's output carries to a consumer on another rank.
  enum Flow : std::uint8_t { kNoData = 0, kActivation = 1, kGradient = 2 };
  struct NodeState {
    std::int64_t readyAt = 0;    // latest arrival of a dependency so far
    std::int32_t pending = 0;    // dependencies not yet arrived
    std::int32_t rankFlow = -1;  // (rank << 2) | Flow; -1 for virtual nodes
    int rank() const { return rankFlow < 0 ? -1 : rankFlow >> 2; }
    Flow flow() const { return rankFlow < 0 ? kNoData : static_cast<Flow>(rankFlow & 3); }
  };
  struct Event {
    std::int64_t time;
    std::int64_t seq;
    std::int32_t node;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };

  void buildSuccessors();
  void push(std::int64_t t, std::int32_t node);
  void tryStart(int r);
  void complete(std::int32_t node, std::int64_t t);
  std::int64_t transfer(std::int32_t producer, std::int32_t consumer, OpKind sendKind, int src,
                        int dst, std::int64_t t);
  // BPipe's activation moves (Plan::activationMoves). Their events are ids past the graph's
  // nodes: n + 2·instance for the RELOAD's start, + 1 for its arrival.
  void setUpMoves();
  void offload(std::int32_t instance, std::int64_t t);
  void reloadWhenReady(std::int32_t instance);
  void completeMoveEvent(std::int32_t id, std::int64_t t);
  // A copy of `bytes` from src to dst starting at t on their link; [start, end) of the copy.
  std::pair<std::int64_t, std::int64_t> copy(int src, int dst, std::int64_t bytes, std::int64_t t,
                                             const std::string& what);

  // Piper's all-to-alls and NestPipe's embedding fetches (EventSimulationComm.cpp), on each
  // rank's communication lane (free from commFree_[r] on), their copies queued on the links.
  // Fetch arrivals are events past the moves' ids: n + 2·moves + fetch.
  void setUpComm();
  bool hasComm() const { return p_.expertAllToAll.bytes > 0 || p_.embeddingFetch.bytes > 0; }
  // The all-to-all after `node` (an F, B or I of rank r that ended at t): when it ends.
  std::int64_t allToAllAfter(std::int32_t node, int r, std::int64_t t);
  // The fetch of `node`'s embeddings (an F of stage 0 on rank r), starting at t at the earliest
  // on r's lane: when they have all arrived.
  std::int64_t fetch(std::int32_t node, int r, std::int64_t t);
  // Its parts: the stages [from, to) from t on (when the last ends), and the gather from t on.
  std::int64_t fetchStages(std::int32_t node, int r, std::int64_t t, std::size_t from,
                           std::size_t to);
  std::int64_t gather(std::int32_t node, int r, std::int64_t t);
  // An OPT of `step` ended at t: once every rank's has, the embedding rows are updated and the
  // next step's overlapped fetches waiting for them go on with their lookup.
  void rowsUpdated(int step, std::int64_t t);
  static constexpr std::size_t kLookupStage = 3;
  // Overlapped fetches: the next ones rank r may issue now that its `done`-th F of stage 0 has
  // ended at t and freed its buffer (done = -1: at time 0). EmbeddingFetch::ahead + 1 buffers.
  void issueFetches(int r, int done, std::int64_t t);
  void fetchArrived(std::int32_t node, std::int64_t t);

  const Plan& p_;
  const std::atomic<bool>* cancel_;
  const OpGraph& g_;
  OpCosts costs_;
  MemoryTracker mem_;
  SimResult out_;
  std::vector<NodeState> node_;
  std::vector<std::int32_t> succBegin_, succ_;
  std::vector<std::int32_t> recordOf_;  // per compute op: its index in the records (placed ops)
  std::vector<std::pair<int, std::int64_t>> sent_;  // per completion: (rank, arrival) sent to
  std::vector<std::int64_t> streamFree_, linkFree_;
  std::vector<std::size_t> head_;
  std::vector<char> busy_;
  std::vector<std::int32_t> unitLast_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<Event> stack_;
  bool timeOrdered_ = true;
  bool hasOverlap_ = false;
  std::int64_t seq_ = 0;
  std::string overflow_;  // set when a time would pass kMaxSimTimeNs: the run's error

  std::vector<MoveInstance> moves_;
  std::vector<std::int32_t> offloadAfter_, reloadWith_;  // per node: a move instance or -1
  std::vector<std::int64_t> offloaded_, triggered_;      // per instance: times, -1 = not yet

  std::vector<std::int64_t> commFree_;                 // per rank
  std::vector<std::vector<int>> stagePeers_;           // per (replica·S + stage): the twins' ranks
  std::vector<std::vector<int>> pipelineRanks_;        // per replica: its ranks
  std::vector<std::vector<std::int32_t>> fetchNodes_;  // per rank: its F(0) nodes, in order
  std::vector<std::int32_t> fetchIndexOf_;             // per node: its index there, or -1
  std::vector<std::int32_t> fetchesIssued_;            // per rank
  std::vector<std::int64_t> fetchStageFree_;           // per rank · kFetchStages + stage
  struct WaitingFetch {
    std::int32_t node;
    int rank;
    std::int64_t routed;  // when its keys were routed
  };
  std::vector<std::int64_t> updatedAt_;  // per step: when every rank's OPT ended, or -1
  std::vector<int> updatesDone_;         // per step: OPTs ended
  std::vector<std::vector<WaitingFetch>> waitingForRows_;  // per step: fetches of the next
};

}  // namespace ps::runtime::sim
