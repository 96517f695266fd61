#include "runtime/sim/EventSimulation.h"

#include <algorithm>
#include <string>

namespace ps::runtime::sim {

EventSimulation::EventSimulation(const Plan& p, const OpGraph& g, const CostModel& c,
                                 const std::atomic<bool>* cancel)
    : p_(p), cancel_(cancel), g_(g), costs_(p, c), mem_(p, c) {}

Result<SimResult> EventSimulation::run() {
  const std::size_t n = g_.size();
  if (p_.numRanks >= (1 << 29))
    return Error{"simulation: too many ranks (" + std::to_string(p_.numRanks) + ")"};
  buildSuccessors();
  node_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    NodeState& s = node_[i];
    s.pending = g_.depBegin[i + 1] - g_.depBegin[i];
    const int r = g_.rank[i];
    const OpKind k = g_.actions[i].kind;
    // A FILL's frozen output is the input of F(0): it travels like an activation.
    const Flow flow = k == OpKind::F || k == OpKind::FILL ? kActivation
                      : k == OpKind::B || k == OpKind::I  ? kGradient
                                                          : kNoData;
    s.rankFlow = r < 0 ? -1 : (r << 2) | flow;
    hasOverlap_ |= g_.actions[i].overlapNext;
  }
  const auto ranks = static_cast<std::size_t>(p_.numRanks);
  head_.assign(ranks, 0);
  streamFree_.assign(ranks, 0);
  busy_.assign(ranks, 0);
  unitLast_.assign(ranks, -1);
  out_.records.reserve(g_.computeCount);
  recordOf_.resize(g_.computeCount);
  out_.transfers.reserve(g_.computeCount);
  // The communication lanes queue: their collectives must come in time order too.
  timeOrdered_ = !costs_.freeLinks() || hasComm();
  if (timeOrdered_) linkFree_.assign(costs_.channelCount(), 0);
  setUpMoves();
  setUpComm();
  stack_.reserve(ranks * 4);

  for (int r = 0; r < p_.numRanks && overflow_.empty(); ++r)
    tryStart(r);
  for (std::size_t i = g_.computeCount; i < n && overflow_.empty(); ++i)
    if (node_[i].pending == 0) push(0, static_cast<std::int32_t>(i));
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
    if (static_cast<std::size_t>(e.node) >= n) {
      const std::int32_t id = e.node - static_cast<std::int32_t>(n);
      const auto moveIds = 2 * static_cast<std::int32_t>(moves_.size());
      if (id < moveIds)
        completeMoveEvent(id, e.time);
      else
        fetchArrived(id - moveIds, e.time);
      if (!overflow_.empty()) return Error{overflow_};
      continue;
    }
    complete(e.node, e.time);
    if (!overflow_.empty()) return Error{overflow_};
    // A relaxed load every 4096 events costs nothing measurable and answers Ctrl-C in well under
    // a millisecond.
    if ((++completed & 4095) == 0 && cancel_ && cancel_->load(std::memory_order_relaxed))
      return Error{"simulation cancelled"};
  }
  if (!overflow_.empty()) return Error{overflow_};  // in the first tryStart calls
  if (mem_.overflowed()) return Error{mem_.overflowMessage()};
  if (completed != n)
    return Error{"simulation stalled after " + std::to_string(completed) + " of " +
                 std::to_string(n) + " ops (validate the plan first)"};
  mem_.finish(out_);
  costs_.finish(out_);
  return std::move(out_);
}

void EventSimulation::buildSuccessors() {
  const std::size_t n = g_.size();
  succBegin_.assign(n + 1, 0);
  for (auto d : g_.deps)
    ++succBegin_[static_cast<std::size_t>(d) + 1];
  for (std::size_t i = 0; i < n; ++i)
    succBegin_[i + 1] += succBegin_[i];
  succ_.resize(g_.deps.size());
  // succBegin_[d] serves as d's fill cursor, which leaves it at d's end = (d+1)'s begin; shifting
  // back by one restores the begins (no separate cursor array).
  for (std::size_t i = 0; i < n; ++i)
    for (auto d : g_.depsOf(i))
      succ_[static_cast<std::size_t>(succBegin_[d]++)] = static_cast<std::int32_t>(i);
  for (std::size_t i = n; i > 0; --i)
    succBegin_[i] = succBegin_[i - 1];
  succBegin_[0] = 0;
}

// Completions must be processed in time order only when links have finite bandwidth: then
// transfers queue on a link first come, first served. With free links every start time follows
// from its dependencies alone, so any order gives the same schedule, and a plain stack saves the
// heap's log factor.
void EventSimulation::push(std::int64_t t, std::int32_t node) {
  if (timeOrdered_)
    events_.push({t, seq_++, node});
  else
    stack_.push_back({t, 0, node});
}

// Starts the head unit of rank r if its dependencies have all arrived.
void EventSimulation::tryStart(int r) {
  if (busy_[r]) return;
  const std::size_t size = g_.rankSize(r), h = head_[r];
  if (h >= size) return;
  const std::int32_t first = g_.rankNode(r, h);
  const std::size_t unit = (g_.actions[first].overlapNext && h + 1 < size) ? 2 : 1;
  std::int64_t start = streamFree_[r];
  for (std::size_t i = 0; i < unit; ++i) {
    const auto node = first + static_cast<std::int32_t>(i);
    // The partner of an overlapped pair may depend on the first; that edge is satisfied inside.
    std::int32_t waiting = node_[node].pending;
    if (i == 1)
      for (auto d : g_.depsOf(node))
        if (d == first) --waiting;
    if (waiting > 0) return;
    start = std::max(start, node_[node].readyAt);
  }
  busy_[r] = 1;
  std::int64_t t = start;
  for (std::size_t i = 0; i < unit; ++i) {
    const auto node = first + static_cast<std::int32_t>(i);
    const Action& a = g_.actions[node];
    // Serial: the stream fetches, then computes (overlapped fetches move on at F's end).
    if (!fetchIndexOf_.empty() && fetchIndexOf_[static_cast<std::size_t>(node)] >= 0 &&
        !p_.embeddingFetch.overlap)
      t = fetch(node, r, t);
    const std::int64_t d = costs_.placed(a, r, t);
    std::int64_t end = 0;
    if (!addNs(t, d, end)) {
      overflow_ = timeOverflow("rank " + std::to_string(r) + ", " + actionLabel(a), t, d);
      return;
    }
    out_.makespan = std::max(out_.makespan, end);
    recordOf_[static_cast<std::size_t>(node)] = static_cast<std::int32_t>(out_.records.size());
    out_.records.push_back({t, end, -1, r, a.stage, a.microbatch, a.step, -1, a.kind});
    mem_.onStart(r, a, t, end);
    if (!reloadWith_.empty() && reloadWith_[static_cast<std::size_t>(node)] >= 0) {
      const std::int32_t in = reloadWith_[static_cast<std::size_t>(node)];
      triggered_[static_cast<std::size_t>(in)] = t;
      reloadWhenReady(in);
    }
    push(end, node);
    t = end;
  }
  unitLast_[r] = first + static_cast<std::int32_t>(unit) - 1;
  head_[r] += unit;
}

void EventSimulation::complete(std::int32_t node, std::int64_t t) {
  const int r = node_[node].rank();
  const Flow flow = node_[node].flow();
  if (!updatedAt_.empty() && g_.actions[node].kind == OpKind::OPT)
    rowsUpdated(g_.actions[node].step, t);
  // The inner pipeline moves on: this F of stage 0 is done with its buffer of embeddings.
  if (p_.embeddingFetch.overlap && !fetchIndexOf_.empty() &&
      fetchIndexOf_[static_cast<std::size_t>(node)] >= 0)
    issueFetches(r, fetchIndexOf_[static_cast<std::size_t>(node)], t);
  // The activations leave as soon as F has made them, before the rank moves on.
  if (!offloadAfter_.empty() && offloadAfter_[static_cast<std::size_t>(node)] >= 0)
    offload(offloadAfter_[static_cast<std::size_t>(node)], t);
  // Piper: the op's tokens go through their all-to-all before anything takes its output.
  std::int64_t out = t;
  if (p_.expertAllToAll.bytes > 0 && r >= 0) {
    const OpKind k = g_.actions[node].kind;
    if (k == OpKind::F || k == OpKind::B || k == OpKind::I) out = allToAllAfter(node, r, t);
  }
  // Deliver to dependents; one transfer per (producer, destination rank).
  sent_.clear();
  for (std::int32_t k = succBegin_[node]; k < succBegin_[node + 1]; ++k) {
    const auto c = succ_[k];
    NodeState& cs = node_[c];
    const int rc = cs.rank();
    std::int64_t arrival = out;
    if (flow != kNoData && rc >= 0 && rc != r && cs.flow() == flow) {
      const auto sent =
          std::find_if(sent_.begin(), sent_.end(), [rc](const auto& s) { return s.first == rc; });
      if (sent == sent_.end()) {
        const OpKind sendKind = flow == kActivation ? OpKind::SEND_F : OpKind::SEND_B;
        arrival = transfer(node, c, sendKind, r, rc, out);
        sent_.emplace_back(rc, arrival);
      } else {
        arrival = sent->second;
      }
    }
    cs.readyAt = std::max(cs.readyAt, arrival);
    if (--cs.pending == 0) {
      if (rc < 0)
        push(cs.readyAt, c);
      else
        tryStart(rc);
    } else if (hasOverlap_ && rc >= 0 && cs.pending == 1) {
      tryStart(rc);  // may be the partner of an overlapped pair waiting only on its first half
    }
  }
  if (r >= 0 && node == unitLast_[r]) {  // the rank's stream is free again
    busy_[r] = 0;
    // A serial all-to-all holds the compute stream until it ends.
    streamFree_[r] = p_.expertAllToAll.overlap ? t : out;
    tryStart(r);
  }
}

std::int64_t EventSimulation::transfer(std::int32_t producer, std::int32_t consumer,
                                       OpKind sendKind, int src, int dst, std::int64_t t) {
  const Action& pa = g_.actions[producer];
  const Action& ca = g_.actions[consumer];
  const std::int64_t bytes = costs_.transferBytes(sendKind, pa.stage, ca.stage, pa.microbatch);
  const LinkCost& link = costs_.link(src, dst);
  // A free link (no bandwidth limit) never queues: only finite-bandwidth links are FIFO.
  std::int64_t start = t, occupy = 0;
  if (link.bytesPerNs > 0) {
    start = std::max(t, linkFree_[costs_.channel(src, dst)]);
    occupy = roundNs(static_cast<double>(bytes) / link.bytesPerNs);
  }
  std::int64_t sendEnd = 0, arrival = 0;
  const std::int64_t latency = costs_.latency(src, dst);
  const auto where = [&] {  // built only for the error
    return "the transfer of " + actionLabel(pa) + " from rank " + std::to_string(src) +
           " to rank " + std::to_string(dst);
  };
  if (!addNs(start, occupy, sendEnd)) {
    overflow_ = timeOverflow(where(), start, occupy);
    return t;
  }
  if (!addNs(sendEnd, latency, arrival)) {
    overflow_ = timeOverflow(where(), sendEnd, latency);
    return t;
  }
  if (link.bytesPerNs > 0) linkFree_[costs_.channel(src, dst)] = sendEnd;
  out_.transfers.push_back({start, sendEnd, arrival, bytes,
                            recordOf_[static_cast<std::size_t>(producer)], ca.stage, dst,
                            sendKind});
  return arrival;
}

void EventSimulation::setUpMoves() {
  moves_ = moveInstances(p_, g_);
  if (moves_.empty()) return;
  offloadAfter_.assign(g_.size(), -1);
  reloadWith_.assign(g_.size(), -1);
  offloaded_.assign(moves_.size(), -1);
  triggered_.assign(moves_.size(), -1);
  for (std::size_t i = 0; i < moves_.size(); ++i) {
    const MoveInstance& m = moves_[i];
    offloadAfter_[static_cast<std::size_t>(m.forward)] = static_cast<std::int32_t>(i);
    reloadWith_[static_cast<std::size_t>(m.trigger)] = static_cast<std::int32_t>(i);
    ++node_[static_cast<std::size_t>(m.backward)].pending;  // the RELOAD's arrival
  }
}

std::pair<std::int64_t, std::int64_t> EventSimulation::copy(int src, int dst, std::int64_t bytes,
                                                            std::int64_t t,
                                                            const std::string& what) {
  const LinkCost& link = costs_.link(src, dst);
  std::int64_t start = t, occupy = 0, sendEnd = 0, arrival = 0;
  if (link.bytesPerNs > 0) {
    start = std::max(t, linkFree_[costs_.channel(src, dst)]);
    occupy = roundNs(static_cast<double>(bytes) / link.bytesPerNs);
  }
  if (!addNs(start, occupy, sendEnd) || !addNs(sendEnd, costs_.latency(src, dst), arrival)) {
    overflow_ = timeOverflow(what, start, occupy);
    return {t, t};
  }
  if (link.bytesPerNs > 0) linkFree_[costs_.channel(src, dst)] = sendEnd;
  return {start, arrival};
}

// OFFLOAD: the holder reserves the bytes as the copy starts; the owner frees them once it ends.
void EventSimulation::offload(std::int32_t instance, std::int64_t t) {
  const MoveInstance& m = moves_[static_cast<std::size_t>(instance)];
  const std::int64_t bytes = mem_.keptAfterForward(m.stage, m.microbatch);
  const auto [start, end] =
      copy(m.owner, m.holder, bytes, t, "the OFFLOAD of stage " + std::to_string(m.stage));
  out_.records.push_back(
      {start, end, bytes, m.owner, m.stage, m.microbatch, m.step, m.holder, OpKind::OFFLOAD});
  out_.makespan = std::max(out_.makespan, end);
  mem_.moved(m.holder, start, bytes);
  mem_.moved(m.owner, end, -bytes);
  offloaded_[static_cast<std::size_t>(instance)] = end;
  reloadWhenReady(instance);
}

// The RELOAD starts once the activations are away and the op before the backward has started.
void EventSimulation::reloadWhenReady(std::int32_t instance) {
  const auto i = static_cast<std::size_t>(instance);
  if (offloaded_[i] < 0 || triggered_[i] < 0) return;
  push(std::max(offloaded_[i], triggered_[i]), static_cast<std::int32_t>(g_.size()) + 2 * instance);
}

void EventSimulation::completeMoveEvent(std::int32_t id, std::int64_t t) {
  const std::int32_t instance = id / 2;
  const MoveInstance& m = moves_[static_cast<std::size_t>(instance)];
  if (id % 2 == 0) {  // the RELOAD starts: the owner reserves, the holder frees at the end
    const std::int64_t bytes = mem_.keptAfterForward(m.stage, m.microbatch);
    const auto [start, end] =
        copy(m.holder, m.owner, bytes, t, "the RELOAD of stage " + std::to_string(m.stage));
    out_.records.push_back(
        {start, end, bytes, m.owner, m.stage, m.microbatch, m.step, m.holder, OpKind::RELOAD});
    mem_.moved(m.owner, start, bytes);
    mem_.moved(m.holder, end, -bytes);
    push(end, static_cast<std::int32_t>(g_.size()) + id + 1);
    return;
  }
  NodeState& b = node_[static_cast<std::size_t>(m.backward)];  // the RELOAD arrived
  b.readyAt = std::max(b.readyAt, t);
  if (--b.pending == 0 || (hasOverlap_ && b.pending == 1)) tryStart(m.owner);
}

}  // namespace ps::runtime::sim
