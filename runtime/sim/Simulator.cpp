#include "runtime/sim/Simulator.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "runtime/sim/MemoryTracker.h"

namespace ps::runtime {
namespace {

std::int64_t roundNs(double ns) {
  return static_cast<std::int64_t>(std::llround(std::max(0.0, ns)));
}

const StagePlacement& placementOf(const Plan& plan, int stage, int microbatch) {
  const int replica = microbatch >= 0 ? plan.replicaOf(microbatch) : 0;
  return plan.placement[replica][stage];
}

// Which SEND/RECV kinds a dependency edge lowers to; OTHER for edges that carry no data.
OpKind sendKindOf(const Action& producer, const Action& consumer) {
  if (producer.kind == OpKind::F && consumer.kind == OpKind::F) return OpKind::SEND_F;
  const auto isBwd = [](OpKind k) { return k == OpKind::B || k == OpKind::I; };
  if (isBwd(producer.kind) && isBwd(consumer.kind)) return OpKind::SEND_B;
  return OpKind::OTHER;
}

struct Event {
  std::int64_t time;
  std::int64_t seq;
  std::int32_t node;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class EventSimulation {
 public:
  EventSimulation(const Plan& p, const OpGraph& g, const CostModel& c)
      : p_(p), g_(g), c_(c), mem_(p, c) {}

  Result<SimResult> run() {
    const std::size_t n = g_.size();
    buildSuccessors();
    pending_.resize(n);
    readyAt_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      pending_[i] = g_.depBegin[i + 1] - g_.depBegin[i];
    out_.ops.assign(n, {});
    head_.assign(p_.numRanks, 0);
    streamFree_.assign(p_.numRanks, 0);
    busy_.assign(p_.numRanks, 0);
    unitLast_.assign(p_.numRanks, -1);
    linkFree_.assign(static_cast<std::size_t>(p_.numRanks) * p_.numRanks, 0);
    out_.records.reserve(g_.computeCount * 3);
    timeOrdered_ = c_.defaultLink.bytesPerNs > 0;
    for (const auto& [pair, link] : c_.links)
      timeOrdered_ |= link.bytesPerNs > 0;
    stack_.reserve(static_cast<std::size_t>(p_.numRanks) * 4);

    for (int r = 0; r < p_.numRanks; ++r)
      tryStart(r);
    for (std::size_t i = g_.computeCount; i < n; ++i)
      if (pending_[i] == 0) push(0, static_cast<std::int32_t>(i));
    std::size_t completed = 0;
    while (!events_.empty() || !stack_.empty()) {
      Event e;
      if (timeOrdered_) {
        e = events_.top();
        events_.pop();
      } else {
        e = stack_.back();
        stack_.pop_back();
      }
      complete(e.node, e.time);
      ++completed;
    }
    if (completed != n)
      return Error{"simulation stalled after " + std::to_string(completed) + " of " +
                   std::to_string(n) + " ops (validate the plan first)"};
    mem_.finish(out_);
    for (const auto& op : out_.ops)
      out_.makespan = std::max(out_.makespan, op.end);
    return std::move(out_);
  }

 private:
  void buildSuccessors() {
    const std::size_t n = g_.size();
    succBegin_.assign(n + 1, 0);
    for (auto d : g_.deps)
      ++succBegin_[d + 1];
    for (std::size_t i = 0; i < n; ++i)
      succBegin_[i + 1] += succBegin_[i];
    succ_.resize(g_.deps.size());
    std::vector<std::int32_t> at(succBegin_.begin(), succBegin_.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (auto d : g_.depsOf(i))
        succ_[at[d]++] = static_cast<std::int32_t>(i);
  }

  // Completions must be processed in time order only when links have finite bandwidth: then
  // transfers queue on a link first come, first served. With free links every start time
  // follows from its dependencies alone, so any order gives the same schedule, and a plain
  // stack saves the heap's log factor.
  // Durations per (replica, stage, kind) at cost scale 1 on the stage's rank, computed once:
  // opDurationNs walks the stage's layers, which is too slow to repeat for millions of ops.
  std::int64_t duration(const Action& a, int rank) {
    const int kindSlot = static_cast<int>(a.kind);
    if (a.stage < 0 || a.microbatch < 0 || kindSlot > static_cast<int>(OpKind::FILL) ||
        p_.microbatches[a.microbatch].costScale != 1.0)
      return opDurationNs(p_, c_, a, rank);
    const std::size_t key =
        (static_cast<std::size_t>(p_.replicaOf(a.microbatch)) * p_.numStages + a.stage) * 7 +
        kindSlot;
    if (durations_.empty())
      durations_.assign(static_cast<std::size_t>(p_.numReplicas()) * p_.numStages * 7, -1);
    std::int64_t& d = durations_[key];
    if (d < 0) d = opDurationNs(p_, c_, a, rank);
    return d;
  }

  void push(std::int64_t t, std::int32_t node) {
    if (timeOrdered_)
      events_.push({t, seq_++, node});
    else
      stack_.push_back({t, 0, node});
  }

  // Starts the head unit of rank r if its dependencies have all arrived.
  void tryStart(int r) {
    if (busy_[r]) return;
    const auto& nodes = g_.rankNodes[r];
    const std::size_t h = head_[r];
    if (h >= nodes.size()) return;
    const std::size_t unit = (g_.actions[nodes[h]].overlapNext && h + 1 < nodes.size()) ? 2 : 1;
    std::int64_t start = streamFree_[r];
    for (std::size_t i = 0; i < unit; ++i) {
      const auto node = nodes[h + i];
      // The partner of an overlapped pair may depend on the first; that edge is satisfied inside.
      std::int32_t waiting = pending_[node];
      if (unit == 2 && i == 1)
        for (auto d : g_.depsOf(node))
          if (d == nodes[h]) --waiting;
      if (waiting > 0) return;
      start = std::max(start, readyAt_[node]);
    }
    busy_[r] = 1;
    std::int64_t t = start;
    for (std::size_t i = 0; i < unit; ++i) {
      const auto node = nodes[h + i];
      const Action& a = g_.actions[node];
      const std::int64_t end = t + duration(a, r);
      out_.ops[node] = {t, end};
      out_.records.push_back({t, end, -1, r, a.stage, a.microbatch, a.step, -1, a.kind});
      mem_.onStart(r, a, t, end);
      push(end, node);
      t = end;
    }
    unitLast_[r] = nodes[h + unit - 1];
    head_[r] += unit;
  }

  void complete(std::int32_t node, std::int64_t t) {
    const int r = g_.rank[node];
    if (r < 0) out_.ops[node] = {t, t};
    // Deliver to dependents; one transfer per (producer, destination rank).
    std::int32_t sentTo[4] = {-1, -1, -1, -1};
    std::int64_t arrivalAt[4] = {0, 0, 0, 0};
    int sentCount = 0;
    for (std::int32_t k = succBegin_[node]; k < succBegin_[node + 1]; ++k) {
      const auto c = succ_[k];
      const int rc = g_.rank[c];
      std::int64_t arrival = t;
      if (r >= 0 && rc >= 0 && rc != r) {
        const OpKind sendKind = sendKindOf(g_.actions[node], g_.actions[c]);
        if (sendKind != OpKind::OTHER) {
          int slot = -1;
          for (int i = 0; i < sentCount; ++i)
            if (sentTo[i] == rc) slot = i;
          if (slot < 0) {
            const std::int64_t at = transfer(node, c, sendKind, r, rc, t);
            if (sentCount < 4) {
              sentTo[sentCount] = rc;
              arrivalAt[sentCount++] = at;
            }
            arrival = at;
          } else {
            arrival = arrivalAt[slot];
          }
        }
      }
      readyAt_[c] = std::max(readyAt_[c], arrival);
      if (--pending_[c] == 0) {
        if (rc < 0)
          push(readyAt_[c], c);
        else
          tryStart(rc);
      } else if (hasOverlap_ && rc >= 0 && pending_[c] == 1) {
        tryStart(rc);  // may be the partner of an overlapped pair waiting only on its first half
      }
    }
    if (r >= 0 && node == unitLast_[r]) {  // the rank's stream is free again
      busy_[r] = 0;
      streamFree_[r] = t;
      tryStart(r);
    }
  }

  std::int64_t transfer(std::int32_t producer, std::int32_t consumer, OpKind sendKind, int src,
                        int dst, std::int64_t t) {
    const Action& pa = g_.actions[producer];
    const Action& ca = g_.actions[consumer];
    // Activations leave the producing stage; gradients flow back into it.
    const int boundaryStage = sendKind == OpKind::SEND_F ? pa.stage : ca.stage;
    const double scale = p_.microbatches[pa.microbatch].costScale;
    const auto bytes = static_cast<std::int64_t>(
        static_cast<double>(boundaryBytes(p_, c_, boundaryStage)) * scale);
    const LinkCost& link = c_.link(src, dst);
    // A free link (no bandwidth limit) never queues: only finite-bandwidth links are FIFO.
    std::int64_t start = t, occupy = 0;
    if (link.bytesPerNs > 0) {
      std::int64_t& free = linkFree_[static_cast<std::size_t>(src) * p_.numRanks + dst];
      start = std::max(t, free);
      occupy = roundNs(static_cast<double>(bytes) / link.bytesPerNs);
      free = start + occupy;
    }
    const std::int64_t arrival = start + occupy + roundNs(link.latencyNs);
    const OpKind recvKind = sendKind == OpKind::SEND_F ? OpKind::RECV_F : OpKind::RECV_B;
    out_.records.push_back(
        {start, start + occupy, bytes, src, pa.stage, pa.microbatch, pa.step, dst, sendKind});
    out_.records.push_back(
        {start, arrival, bytes, dst, ca.stage, ca.microbatch, ca.step, src, recvKind});
    return arrival;
  }

  const Plan& p_;
  const OpGraph& g_;
  const CostModel& c_;
  MemoryTracker mem_;
  SimResult out_;
  std::vector<std::int32_t> succBegin_, succ_, pending_;
  std::vector<std::int64_t> readyAt_, streamFree_, linkFree_;
  std::vector<std::size_t> head_;
  std::vector<char> busy_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<Event> stack_;
  std::vector<std::int64_t> durations_;
  bool timeOrdered_ = true;
  std::int64_t seq_ = 0;
  std::vector<std::int32_t> unitLast_;
  bool hasOverlap_ = false;
};

}  // namespace

trace::OpRecord toOpRecord(const SimRecord& r) {
  trace::OpRecord op;
  op.rank = r.rank;
  op.kind = r.kind;
  if (r.stage >= 0) op.stage = r.stage;
  if (r.microbatch >= 0) op.microbatch = r.microbatch;
  op.step = r.step;
  op.start_ns = r.start_ns;
  op.end_ns = r.end_ns;
  if (r.peer_rank >= 0) op.peer_rank = r.peer_rank;
  if (r.bytes >= 0) op.bytes = r.bytes;
  return op;
}

std::int64_t opDurationNs(const Plan& plan, const CostModel& cost, const Action& a, int rank) {
  const double speed = cost.speedOf(rank);
  if (a.kind == OpKind::OPT) {
    std::int64_t params = 0;
    for (const auto& replica : plan.placement)
      for (const auto& st : replica)
        if (st.rank == rank)
          for (int l = st.firstLayer; l <= st.lastLayer; ++l)
            params += cost.layers[l].paramBytes;
    return roundNs(cost.optimizerNsPerParamByte * static_cast<double>(params) / speed);
  }
  if (a.stage < 0) return 0;  // FILL without a stage: no model cost
  const StagePlacement& st = placementOf(plan, a.stage, a.microbatch);
  double ns = 0;
  for (int l = st.firstLayer; l <= st.lastLayer; ++l) {
    const LayerCost& c = cost.layers[l];
    switch (a.kind) {
      case OpKind::F:
      case OpKind::R:
      case OpKind::FILL:
        ns += c.fwdNs;
        break;
      case OpKind::B:
        ns += c.inputGradNs + c.weightGradNs;
        break;
      case OpKind::I:
        ns += c.inputGradNs;
        break;
      case OpKind::W:
        ns += c.weightGradNs;
        break;
      default:
        break;
    }
  }
  const double scale = a.microbatch >= 0 ? plan.microbatches[a.microbatch].costScale : 1.0;
  return roundNs(ns * scale / speed);
}

std::int64_t activationBytes(const Plan& plan, const CostModel& cost, int stage) {
  const StagePlacement& st = plan.placement[0][stage];
  std::int64_t bytes = 0;
  for (int l = st.firstLayer; l <= st.lastLayer; ++l)
    bytes += cost.layers[l].actBytes;
  return bytes;
}

std::int64_t boundaryBytes(const Plan& plan, const CostModel& cost, int stage) {
  const LayerCost& last = cost.layers[plan.placement[0][stage].lastLayer];
  return last.outputBytes > 0 ? last.outputBytes : last.actBytes;
}

Result<SimResult> simulate(const Plan& plan, const OpGraph& graph, const CostModel& cost) {
  if (static_cast<int>(cost.layers.size()) < plan.numLayers)
    return Error{"the cost model has " + std::to_string(cost.layers.size()) +
                 " layers but the plan has " + std::to_string(plan.numLayers)};
  for (const auto& replica : plan.placement)
    for (std::size_t s = 0; s < replica.size(); ++s)
      if (replica[s].firstLayer < 0 || replica[s].lastLayer < replica[s].firstLayer ||
          replica[s].lastLayer >= static_cast<int>(cost.layers.size()))
        return Error{"stage " + std::to_string(s) + " has layer range " +
                     std::to_string(replica[s].firstLayer) + ".." +
                     std::to_string(replica[s].lastLayer) + " outside the model's " +
                     std::to_string(cost.layers.size()) + " layers"};
  EventSimulation sim(plan, graph, cost);
  return sim.run();
}

}  // namespace ps::runtime
